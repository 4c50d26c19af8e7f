// Reads a V8 .cpuprofile (node --cpu-prof) and prints where the self time went: by area (Next,
// the Prisma client, web streams, async hooks, GC, …) and the heaviest functions. Areas are
// decided from each frame's script URL, so "Next" means time spent in Next's own code or its
// compiled chunks, not in the code it calls.
import { readFileSync } from "node:fs";

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

const AREAS: [string, (url: string, name: string) => boolean][] = [
  ["(idle)", (_u, n) => n === "(idle)"],
  ["GC", (_u, n) => n === "(garbage collector)"],
  ["(program: native, outside JS)", (_u, n) => n === "(program)"],
  ["Next (node_modules/next, .next chunks)", (u) => u.includes("/node_modules/next/") || u.includes("/.next/")],
  ["Prisma client + adapter", (u) => /@prisma|generated\/prisma|\/prisma\/client/.test(u)],
  ["pg driver", (u) => /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(u)],
  ["OpenTelemetry API", (u) => u.includes("@opentelemetry")],
  ["prom-client", (u) => u.includes("prom-client")],
  ["zod", (u) => u.includes("/zod/")],
  ["web streams", (u) => u.includes("internal/webstreams")],
  ["undici (Request/Response/Headers)", (u) => u.includes("undici") || u.includes("internal/deps/undici")],
  ["async hooks / AsyncLocalStorage", (u) => u.includes("async_hooks") || u.includes("async_local_storage")],
  [
    "node:http + net + streams",
    (u) => /internal\/(streams|http|net|stream_base)|node:_http|node:net|^node:http/.test(u),
  ],
  ["other node internals", (u) => u.startsWith("node:")],
  ["keyhook (lib/, app/, server/)", (u) => /\/(lib|app|server)\//.test(u)],
  ["other", () => true],
];

export function summarizeProfile(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const area = AREAS.find(([, match]) => match(url, functionName))![0];
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const where = url
      ? `${url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(\.next|lib|app|scripts)\//, "$1/")}:${lineNumber + 1}`
      : "";
    const key = `${functionName || "(anonymous)"} ${where}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const busy = total - (areas.get("(idle)") ?? 0);
  const pct = (micros: number) => `${((micros / busy) * 100).toFixed(1).padStart(5)} %`;
  const lines = [
    `profile ${file}: ${(busy / 1e6).toFixed(2)} s busy of ${(total / 1e6).toFixed(2)} s`,
    "",
    "self time by area (share of busy time):",
  ];
  for (const [area, micros] of [...areas].sort((a, b) => b[1] - a[1])) {
    if (area !== "(idle)") lines.push(`  ${pct(micros)}  ${area}`);
  }
  lines.push("", `top ${top} functions by self time:`);
  for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    if (!name.startsWith("(idle)")) lines.push(`  ${pct(micros)}  ${name}`);
  }
  lines.push("", "time under a frame (inclusive, synchronous part only: an await starts a new stack):");
  for (const [name, micros] of inclusiveTimes(profile, self)) lines.push(`  ${pct(micros)}  ${name}`);
  return lines.join("\n");
}

// Steps of the webhook path, outermost first: the time spent under each (once per stack, however
// deep it recurses). A step that awaits shows only its synchronous slices.
const STEPS = [
  "handler",
  "handleRequest",
  "prepareImpl",
  "ensureInstrumentation",
  "getIncrementalCache",
  "handleResponse",
  "fromNodeNextRequest",
  "prepareExecution",
  "executeRequest",
  "sendResponse",
  "pipeToNodeResponse",
  "handleKeyWebhook",
  "receiveKeyWebhook",
  "readBodyWithLimit",
  "verifySignature",
  "ingestEvent",
  "parseEvent",
  "applyKeyEvent",
  "$transaction",
  "startTransaction",
  "performIO",
  "recordDelivery",
  "write",
  "ingestResponse",
];

function inclusiveTimes(profile: CpuProfile, self: Map<number, number>): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, number>();
  for (const [id, micros] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at)!.callFrame.functionName;
      if (STEPS.includes(name) && !seen.has(name)) {
        seen.add(name);
        totals.set(name, (totals.get(name) ?? 0) + micros);
      }
    }
  }
  return STEPS.filter((s) => totals.has(s)).map((s) => [s, totals.get(s)!]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) console.log(summarizeProfile(file));
}
