// `npm run recover -- --since <time> [--dry-run]`: after the database was restored to a point in
// time, asks the provider for every delivery since then (minus RECOVERY_MARGIN_MINUTES), has it
// redeliver each one, waits until each is answered here, and runs the drift check
// (lib/operations/recovery/recover-from-provider.ts; docs/backup.md, "After a restore").
//   --since     the restore point: "2026-12-03 15:53:52" (UTC), ISO 8601 with Z or an offset, or
//               pgBackRest's "2026-12-03 15:53:52.122231+00"
//   --dry-run   list and compare only: nothing is redelivered
//   --stall-ms  give up waiting when no redelivered event has reached us for this long (60000)
//   --json      the result as JSON on stdout
// Run it with the app's environment (DATABASE_URL, PROVIDER_URL, PROVIDER_API_KEY …) while the app
// is up: the redeliveries arrive through its webhook endpoint. Progress goes to stderr.
// Exit 0 when every event was answered and the drift check found nothing, 1 when the run was
// incomplete (it says what is left; running it again is safe), 2 when it was refused or could not run.
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { openScriptDatabase } from "../tooling/script-database";

const usage = "usage: npm run recover -- --since <time> [--dry-run] [--stall-ms N] [--json]";

function fail(message: string): never {
  process.stderr.write(`keyhook: ${message}\n`);
  process.exit(2);
}

/** UTC unless the text says otherwise; microseconds (pgBackRest's targets) are cut to milliseconds. */
function parsePointInTime(raw: string): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
    raw.trim(),
  );
  if (!match) return null;
  const [, day, minutes, seconds = ":00", fraction = "", zone = "Z"] = match;
  const offset = /^(Z|UTC)$/i.test(zone)
    ? "Z"
    : zone.length === 3
      ? `${zone}:00`
      : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const date = new Date(`${day}T${minutes}${seconds}${fraction.slice(0, 4)}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

let args: { since: Date; dryRun: boolean; stallMs?: number; json: boolean };
try {
  const { values } = parseArgs({
    options: {
      since: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      "stall-ms": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.since) fail(`--since is required: the point in time the database was restored to\n${usage}`);
  const since = parsePointInTime(values.since);
  if (!since)
    fail(`--since "${values.since}" is not a date and time (use YYYY-MM-DD HH:MM:SS, UTC, or ISO 8601)\n${usage}`);
  const stall = values["stall-ms"];
  if (stall !== undefined && !/^\d+$/.test(stall)) fail(`--stall-ms must be a whole number\n${usage}`);
  args = {
    since,
    dryRun: values["dry-run"] ?? false,
    stallMs: stall === undefined ? undefined : Number(stall),
    json: values.json ?? false,
  };
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
}

const { stop: stopDatabase, disconnectDb } = await openScriptDatabase(fail);
const { recoverFromProvider } = await import("../lib/operations/recovery/recover-from-provider");

let lastProgress = 0;
const progress = (line: string, force = false) => {
  if (!force && performance.now() - lastProgress < 1_000) return;
  lastProgress = performance.now();
  process.stderr.write(`keyhook: ${line}\n`);
};
const at = (date: Date) => date.toISOString().replace(".000Z", "Z");
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

let exitCode = 2;
try {
  const result = await recoverFromProvider({
    actor: { id: null, label: `cli (${userInfo().username})` },
    since: args.since,
    dryRun: args.dryRun,
    stallTimeoutMs: args.stallMs,
    onProgress: (p) => {
      if (p.phase === "listing") progress(`listing the provider's deliveries: ${p.attempts} attempts so far`);
      else if (p.phase === "redelivering")
        progress(`asking for redelivery: ${p.done} of ${p.total}`, p.done === p.total);
      else if (p.phase === "waiting") progress(`answered here: ${p.landed} of ${p.total}`, p.landed === p.total);
      else progress("running the drift check", true);
    },
  });
  const outcomes = Object.entries(result.outcomes)
    .map(([outcome, n]) => `${outcome} ${n}`)
    .join(", ");
  if (args.json) {
    console.log(JSON.stringify(result, null, 2));
  } else if (result.dryRun) {
    console.log(
      `restored to ${at(result.since)}; the provider had ${result.events} deliveries since ${at(result.from)} ` +
        `(${result.attempts} attempts); ${result.missing} are missing here and would be applied again, ` +
        `${result.events - result.missing} would be absorbed as duplicates; dry run: nothing was redelivered`,
    );
  } else {
    console.log(
      `restored to ${at(result.since)}; the provider had ${result.events} deliveries since; ` +
        `${result.appliedAgain} applied again, ${result.absorbed} absorbed as duplicates; ` +
        `drift after: ${result.drift?.status === "done" ? result.drift.differences : `unknown (drift check ${result.drift?.status})`}`,
    );
    if (outcomes) console.log(`  applied again, by outcome: ${outcomes}`);
    console.log(
      `  read the provider's history from ${at(result.from)} (${result.attempts} attempts); ` +
        `${result.requested} redeliveries asked for${result.rounds > 1 ? ` in ${result.rounds} rounds (some were not answered here in time)` : ""}; ` +
        `${(result.durationMs / 1000).toFixed(1)} s (listing ${sec(result.phasesMs.list)}, asking ${sec(result.phasesMs.redeliver)}, ` +
        `waiting ${sec(result.phasesMs.wait)}, drift check ${sec(result.phasesMs.drift)})`,
    );
    if (result.notLanded.count > 0)
      console.log(
        `  NOT answered here yet: ${result.notLanded.count} (e.g. ${result.notLanded.examples.join(", ")}); ` +
          "is the app running and reachable at the webhook URL the provider has? Running this again is safe.",
      );
    if (result.drift && result.drift.differences > 0)
      console.log(`  the drift check (run ${result.drift.runId}) found differences: see /alerts`);
  }
  const complete =
    result.dryRun ||
    (result.notLanded.count === 0 && result.drift?.status === "done" && result.drift.differences === 0);
  exitCode = complete ? 0 : 1;
} catch (error) {
  const { AppError } = await import("../lib/core/errors");
  console.error(
    `keyhook: recover ${error instanceof AppError && error.code === "bad_request" ? "refused" : "failed"}: ${error instanceof AppError ? error.publicMessage : error instanceof Error ? error.message : String(error)}`,
  );
} finally {
  await disconnectDb();
  await stopDatabase();
}
process.exit(exitCode);
