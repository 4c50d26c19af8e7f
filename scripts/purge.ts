// `npm run purge`: one purge of the dedupe ledger and receipts, now (docs/design.md, invariant 6).
//   npm run purge -- [--batch-size N] [--pause-ms N]
// Either flag fixes what is otherwise paced (lib/operations/retention/purge-pacing.ts): the batch size
// adapts to a target batch duration, the rest to the batch's duration and WAL.
// On DATABASE_URL, or, when it is unset, on the embedded PostgreSQL in .data/postgres (started for
// the occasion, or shared with a running `npm run dev`), like `npm run db:migrate`.
// Exit code 0 when it ran or another replica holds the lock, 1 when it failed or was refused.
import { parseArgs } from "node:util";
import { openScriptDatabase } from "../tooling/script-database";

const usage = "usage: npm run purge -- [--batch-size N (1..50000)] [--pause-ms N]";

function fail(message: string): never {
  process.stderr.write(`keyhook: ${message}\n`);
  process.exit(1);
}

let args: { batchSize?: number; pauseMs?: number };
try {
  const { values } = parseArgs({ options: { "batch-size": { type: "string" }, "pause-ms": { type: "string" } } });
  const whole = (name: string, raw: string | undefined) => {
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) fail(`--${name} must be a whole number\n${usage}`);
    return Number(raw);
  };
  args = { batchSize: whole("batch-size", values["batch-size"]), pauseMs: whole("pause-ms", values["pause-ms"]) };
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
}

const { stop: stopDatabase, disconnectDb } = await openScriptDatabase(fail);
const { runPurge } = await import("../lib/operations/retention/run-purge");

let exitCode = 1;
try {
  const run = await runPurge({ trigger: "cli", ...args });
  const seconds = (run.durationMs / 1000).toFixed(1);
  if (run.status === "ran") {
    console.log(
      `purge ran in ${seconds} s: ${run.claimsDeleted} claims and ${run.receiptsDeleted} receipts deleted, ` +
        `${run.payloadsCleared} payloads cleared, ${run.batches} batches (run ${run.id})`,
    );
    exitCode = 0;
  } else if (run.status === "skipped_locked") {
    console.log(`purge skipped: another process holds the purge lock (run ${run.id})`);
    exitCode = 0;
  } else {
    console.error(`keyhook: purge failed: ${run.error} (run ${run.id})`);
  }
} catch (error) {
  const { AppError } = await import("../lib/core/errors");
  console.error(
    `keyhook: purge failed: ${error instanceof AppError ? error.publicMessage : error instanceof Error ? error.message : String(error)}`,
  );
} finally {
  await disconnectDb();
  await stopDatabase();
}
process.exit(exitCode);
