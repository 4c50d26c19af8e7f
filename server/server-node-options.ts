// V8's sizing for the production server process, the same wherever it runs: `npm start`
// (scripts/boot.ts), the image (the Dockerfile's ENV NODE_OPTIONS) and the deploy tests that run
// the artifact as the image does (test/deploy/standalone-app.ts); a guard test keeps the
// Dockerfile equal to this.
//
// --max-semi-space-size=8 (MiB): the young generation kept small. Under a sustained CSV export the
// young generation otherwise grows to its maximum (64 MiB per semi-space on Node 24, 16 on Node
// 20), scavenges get rarer, and the encoded page chunks (ArrayBuffers outside the heap, freed only
// when a scavenge collects their wrappers) pile up between them; the allocator keeps the peak.
// At 8 the export's RSS growth is the smallest of the sizes tried, at no measurable ingest CPU
// (the figures per size: docs/decisions/0015-node-24-runtime.md).
export const SERVER_NODE_OPTIONS = "--max-semi-space-size=8";

/** `env` with SERVER_NODE_OPTIONS first in NODE_OPTIONS: a flag the operator sets there comes later and wins. */
export function withServerNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, NODE_OPTIONS: [SERVER_NODE_OPTIONS, env.NODE_OPTIONS].filter(Boolean).join(" ") };
}
