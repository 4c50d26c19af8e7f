import "server-only";
// Step 2: a forced failure → a non-2xx answer and nothing committed. The check itself holds the
// canary district's row lock (its own database connection) while it posts a signed canary event
// to our public endpoint: the ingest claims the event, waits on the lock past
// INGEST_TX_TIMEOUT_MS, must roll back and answer 503 so the provider retries. Nothing an outside
// caller could switch on: only a process holding the database can hold that lock.
import pg from "pg";
import { env } from "../../core/config/env";
import { describeError } from "../../core/log";
import { CANARY_TENANT_ID } from "../../core/tenancy/canary";
import { canaryEvent, canaryLastSequence, postSigned, type CanaryAnswer } from "./canary-events";
import { stepReporter, type ReadinessContext, type StepResult } from "./types";

const TITLE = "A forced failure → a non-2xx answer and nothing committed";

export async function checkForcedFailure(
  context: ReadinessContext,
  options: { databaseUrl?: string } = {},
): Promise<StepResult> {
  const started = Date.now();
  const { db } = context;
  const evidence: Record<string, unknown> = { ingest_timeout_ms: context.ingestTimeoutMs };
  const done = stepReporter("forced_failure", TITLE, evidence, started);

  await db.tenant.upsert({
    where: { id: CANARY_TENANT_ID },
    create: { id: CANARY_TENANT_ID, name: "Readiness canary" },
    update: {},
  });
  // At the district's current sequence: even if it were (wrongly) committed, it opens no gap.
  const event = canaryEvent({ sequence: Math.max(1, (await canaryLastSequence(db)) ?? 1), label: "fail" });
  evidence.event_id = event.eventId;

  const connectionString = options.databaseUrl ?? env().DATABASE_URL;
  if (!connectionString)
    return done(false, "no DATABASE_URL to hold the lock with", "Run the check with the deployment's DATABASE_URL.");
  const holder = new pg.Client({ connectionString, application_name: "keyhook-readiness-lock" });
  let answer: CanaryAnswer;
  const heldFrom = Date.now();
  try {
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SET LOCAL statement_timeout = 0");
    await holder.query("SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE", [CANARY_TENANT_ID]);
    // Held until the answer comes back: by then the ingest has given up (or, wrongly, answered).
    answer = await postSigned({
      url: context.webhookUrl,
      body: event.body,
      eventId: event.eventId,
      secret: context.secrets[0]!,
      timeoutMs: context.ingestTimeoutMs * 3 + 5_000,
    });
    await holder.query("ROLLBACK");
  } catch (error) {
    return done(
      false,
      `could not hold the canary district's lock: ${describeError(error)}`,
      "The check needs the deployment's database (DATABASE_URL) with the usual privileges.",
    );
  } finally {
    await holder.end().catch(() => undefined);
  }
  evidence.lock_held_ms = Date.now() - heldFrom;
  evidence.answer = answer;

  const [claims, keys, receipts] = await Promise.all([
    db.processedEvent.count({ where: { tenantId: CANARY_TENANT_ID, eventId: event.eventId } }),
    db.apiKey.count({ where: { id: event.keyId } }),
    db.receipt.findMany({ where: { eventId: event.eventId }, select: { status: true, error: true } }),
  ]);
  evidence.committed = { ledger_rows: claims, key_rows: keys };
  evidence.receipts = receipts;

  if (answer.status === 0) {
    return done(
      false,
      `the endpoint did not answer: ${answer.body}`,
      `Check that ${context.webhookUrl} is this deployment's public endpoint and that INGEST_TX_TIMEOUT_MS matches the app's.`,
    );
  }
  if (answer.status >= 200 && answer.status < 300) {
    return done(
      false,
      `answered ${answer.status} while the district was locked for ${evidence.lock_held_ms} ms`,
      "The ingest must roll back and answer 503 when its transaction exceeds INGEST_TX_TIMEOUT_MS; a 2xx here means a failure can be reported as success. Keep retries off.",
    );
  }
  if (answer.status < 500) {
    // Refused before any transaction (e.g. 401): nothing was forced, so nothing was proved.
    return done(
      false,
      `answered ${answer.status} (${answer.body}) before reaching the transaction`,
      "The check signs with the first secret of WEBHOOK_SECRETS: run it with the app's settings.",
    );
  }
  if (claims > 0 || keys > 0) {
    return done(
      false,
      `answered ${answer.status} but committed ${claims} ledger row(s) and ${keys} key row(s)`,
      "A non-2xx answer must commit nothing, or the provider's retry meets a half-done change. Check the ingest's transaction.",
    );
  }
  return done(
    true,
    `answered ${answer.status} after the lock was held ${evidence.lock_held_ms} ms; nothing committed`,
    null,
  );
}
