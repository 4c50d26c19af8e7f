// `npm run alerts -- sweep`: one alert sweep now (lib/operations/worker/sweep-alerts.ts); prints what it raised
// and resolved. `npm run alerts -- drift`: one drift check now against PROVIDER_URL
// (lib/operations/drift/run-drift-check.ts); prints the run. The worker runs both on its own schedule; these
// are for operators and for the browser tests (which run no worker).
// On DATABASE_URL, or, when it is unset, on the embedded PostgreSQL in .data/postgres, like `npm run purge`.
// Exit code 0 when it ran, 1 when it failed (a drift check the provider interrupted included).
import { openScriptDatabase } from "../tooling/script-database";

const usage = "usage: npm run alerts -- sweep | drift";

function fail(message: string): never {
  process.stderr.write(`keyhook: ${message}\n`);
  process.exit(1);
}

const command = process.argv[2];
if (command !== "sweep" && command !== "drift") fail(usage);

const { stop: stopDatabase, disconnectDb } = await openScriptDatabase(fail);

let exitCode = 1;
try {
  if (command === "sweep") {
    const { sweepAlerts } = await import("../lib/operations/worker/sweep-alerts");
    // At least twice: quarantined events are folded behind a two-step watermark
    // (sweep-quarantine.ts), which also waits while an older transaction is still open.
    await sweepAlerts();
    let result = await sweepAlerts();
    for (let retry = 0; result.quarantine?.waiting && retry < 50; retry++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await sweepAlerts();
    }
    for (const [kind, r] of Object.entries(result)) console.log(`${kind}: ${r.raised} raised, ${r.resolved} resolved`);
    exitCode = 0;
  } else {
    const { runDriftCheck } = await import("../lib/operations/drift/run-drift-check");
    const { providerClientFromEnv } = await import("../lib/operations/provider/client");
    const run = await runDriftCheck({
      provider: providerClientFromEnv(),
      trigger: "cli",
      requestedBy: "npm run alerts",
    });
    console.log(JSON.stringify(run));
    exitCode = run.status === "done" ? 0 : 1;
  }
} catch (error) {
  const { AppError } = await import("../lib/core/errors");
  console.error(
    `keyhook: ${command} failed: ${error instanceof AppError ? error.publicMessage : error instanceof Error ? error.message : String(error)}`,
  );
} finally {
  await disconnectDb();
  await stopDatabase();
}
process.exit(exitCode);
