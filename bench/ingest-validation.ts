// The CPU cost of the ingest's body checks per delivery, on the benchmark's own event shape:
// the storable-JSON passes (number literals on the text, depth and strings on the value) and the
// contract redaction, beside JSON.parse and the schema parse measured in the same run (ratios,
// not absolute figures, are what carry across machines).
//   node --import tsx bench/ingest-validation.ts
import { parseEvent } from "../lib/core/ingest/event-schema";
import { redactPayload } from "../lib/core/ingest/redact-payload";
import { findUnstorable, unstorableNumberOffset } from "../lib/core/ingest/storable-json";

const bodies = Array.from({ length: 1_000 }, (_, i) =>
  JSON.stringify({
    id: `evt_lz3k9a_${i}`,
    type: "key.rotated",
    tenant_id: `bench-lz3k9a-${i % 1000}`,
    key_id: `key_lz3k9a_${i}_2`,
    sequence: 2 + i,
    occurred_at: new Date().toISOString(),
    data: { prefix: `ik_live_${String(i).padStart(4, "0")}`, scopes: ["rosters:read"] },
    previous_key_id: `key_lz3k9a_${i}_1`,
  }),
);
const values = bodies.map((body) => JSON.parse(body) as unknown);

function measure(name: string, run: (i: number) => unknown): number {
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += run(i % bodies.length) ? 1 : 0; // warm-up (JIT)
  const rounds = 200_000;
  const started = process.cpuUsage();
  for (let i = 0; i < rounds; i++) sink += run(i % bodies.length) ? 1 : 0;
  const used = process.cpuUsage(started);
  const micros = (used.user + used.system) / rounds;
  if (sink < 0) console.log(sink);
  return micros;
}

const results: [string, number][] = [
  ["JSON.parse (reference)", measure("parse", (i) => JSON.parse(bodies[i]!))],
  ["parseEvent (zod schema)", measure("schema", (i) => parseEvent(values[i]))],
  ["unstorableNumberOffset (raw text)", measure("numbers", (i) => unstorableNumberOffset(bodies[i]!) + 1)],
  ["findUnstorable (depth, strings)", measure("walk", (i) => findUnstorable(values[i]) === null)],
  [
    "redactPayload (allow-list)",
    measure("redact", (i) => redactPayload(values[i], { checkShapes: false }).redacted === false),
  ],
];
const reference = results[0]![1];
console.log(`body ${Buffer.byteLength(bodies[0]!)} bytes; CPU µs per body (ratio to JSON.parse in this run)`);
for (const [name, micros] of results)
  console.log(`${name.padEnd(36)} ${micros.toFixed(3).padStart(7)} µs  ×${(micros / reference).toFixed(2)}`);
const added = results.slice(2).reduce((sum, [, micros]) => sum + micros, 0);
console.log(
  `${"added by this change".padEnd(36)} ${added.toFixed(3).padStart(7)} µs  ×${(added / reference).toFixed(2)}`,
);
