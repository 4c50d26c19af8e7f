import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The launcher (scripts/boot.ts) owns the database lifecycle; Next only serves.
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
