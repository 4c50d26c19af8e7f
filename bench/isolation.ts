// `npm run bench:isolation`: the isolation phase alone (bench/support/isolation-phase.ts) on the
// production build with BENCH_LEDGER_ROWS ledger rows (default 1,000,000) to export.
// Writes bench/results/isolation.json and a line in history.ndjson; exit 1 when ingest saw a
// non-2xx under load.
import { BENCH_SECRET, startAppUnderTest } from "./support/app-under-test";
import { assertSignerMatchesLibrary, createEventStream } from "./support/event-stream";
import { fillLedger, signInCookie } from "./support/dashboard-render";
import { formatIsolation, runIsolationPhase } from "./support/isolation-phase";
import { writeResult } from "./support/results";

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const ledgerRows = Number(process.env.BENCH_LEDGER_ROWS ?? 1_000_000);
assertSignerMatchesLibrary(BENCH_SECRET);
const app = await startAppUnderTest({
  port: Number(process.env.BENCH_PORT ?? 4600),
  pgPort: Number(process.env.BENCH_PG_PORT ?? 54349),
  env: { KEYHOOK_SEED_DEMO: "1" },
});
let failed = false;
try {
  await fillLedger(app, ledgerRows);
  // Signed in before the flood: the flood closes this client address's sign-in door for a while.
  const staffCookie = await signInCookie(app.baseUrl, "support@keyhook.test");
  const stream = createEventStream({ secret: BENCH_SECRET, tenants: 1000, runId: Date.now().toString(36) });
  const result = await runIsolationPhase(app, { stream, seconds, staffCookie });
  console.log(`\n${formatIsolation(result)}`);
  failed = result.loaded.non2xx > 0 || result.unloaded.non2xx > 0;
  writeResult("isolation", { seconds, ledgerRows, ...result });
} finally {
  await app.stop();
}
if (failed) process.exit(1);
