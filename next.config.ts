import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The launcher (scripts/boot.ts) owns the database lifecycle; Next only serves.
  poweredByHeader: false,
  typedRoutes: false,
  // One deployable folder (.next/standalone) with the node_modules the server needs and no dev
  // dependencies; server/build-standalone.ts completes it (static files, migrations, entries).
  output: "standalone",
};

export default nextConfig;
