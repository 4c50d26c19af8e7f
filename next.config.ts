import type { NextConfig } from "next";
import { PHASE_PRODUCTION_BUILD } from "next/constants";

export default function nextConfig(phase: string): NextConfig {
  return {
    // The launcher (scripts/boot.ts) owns the database lifecycle; Next only serves.
    poweredByHeader: false,
    typedRoutes: false,
    // One deployable folder (.next/standalone) with the node_modules the server needs and no dev
    // dependencies; server/build-standalone.ts completes it (static files, migrations, entries).
    // A build setting: `npm start`'s custom server reads this file again at run time, where Next
    // would take it for `next start` and warn that standalone output wants its server.js.
    ...(phase === PHASE_PRODUCTION_BUILD ? { output: "standalone" as const } : {}),
    // `npm run dev` prints 127.0.0.1 addresses (the simulator, the worker's webhook URL): a page
    // opened there must hydrate too. next dev refuses its dev resources to any origin but localhost
    // unless listed; loopback is the same machine.
    allowedDevOrigins: ["127.0.0.1"],
  };
}
