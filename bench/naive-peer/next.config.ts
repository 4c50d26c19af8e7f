import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Only for where the benchmark builds it: outside the checkout, its node_modules a link to the
  // checkout's, which Turbopack follows only inside its root.
  turbopack: { root: "/" },
};

export default nextConfig;
