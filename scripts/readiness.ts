// `npm run readiness`: the retry-readiness check against the running system, for operators and CI.
//   npm run readiness -- [--webhook-url URL] [--wait-ms N] [--json]
// Needs what the app has: DATABASE_URL (or the embedded server of `npm run dev`), WEBHOOK_SECRETS,
// INGEST_TX_TIMEOUT_MS, PROVIDER_URL / PROVIDER_API_KEY, and the public webhook URL
// (PROVIDER_WEBHOOK_URL, else NEXTAUTH_URL, else http://127.0.0.1:PORT). Every run is stored and
// audited like one started from the Readiness page.
// Exit 0 when every step passed, 1 when one failed (each says what to fix), 2 when it could not run.
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { openScriptDatabase } from "../tooling/script-database";

const usage = "usage: npm run readiness -- [--webhook-url URL] [--wait-ms N] [--json]";

function fail(message: string): never {
  process.stderr.write(`keyhook: ${message}\n`);
  process.exit(2);
}

let args: { webhookUrl?: string; waitMs?: number; json: boolean };
try {
  const { values } = parseArgs({
    options: {
      "webhook-url": { type: "string" },
      "wait-ms": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const wait = values["wait-ms"];
  if (wait !== undefined && !/^\d+$/.test(wait)) fail(`--wait-ms must be a whole number\n${usage}`);
  args = {
    webhookUrl: values["webhook-url"],
    waitMs: wait === undefined ? undefined : Number(wait),
    json: values.json ?? false,
  };
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
}

const { stop: stopDatabase, disconnectDb } = await openScriptDatabase(fail);
const { runReadiness } = await import("../lib/operations/readiness/run-readiness");

let exitCode = 2;
try {
  const actor = { id: null, label: `cli (${userInfo().username})` };
  const result = await runReadiness({ actor, trigger: "cli", webhookUrl: args.webhookUrl, waitTimeoutMs: args.waitMs });
  if (args.json) {
    console.log(JSON.stringify(result, (_key, value) => (typeof value === "bigint" ? String(value) : value), 2));
  } else {
    for (const step of result.steps) {
      console.log(
        `${step.passed ? (step.warning ? "WARN" : "PASS") : "FAIL"}  ${step.title}\n      ${step.summary}${step.fix ? `\n      ${step.warning ? "advice" : "fix"}: ${step.fix}` : ""}`,
      );
    }
    console.log(
      result.passed
        ? `ready for retries (run ${result.id})`
        : `NOT ready for retries: ${result.steps.filter((s) => !s.passed).length} step(s) failed (run ${result.id})`,
    );
  }
  exitCode = result.passed ? 0 : 1;
} catch (error) {
  const { AppError } = await import("../lib/core/errors");
  console.error(
    `keyhook: readiness check could not run: ${error instanceof AppError ? error.publicMessage : error instanceof Error ? error.message : String(error)}`,
  );
} finally {
  await disconnectDb();
  await stopDatabase();
}
process.exit(exitCode);
