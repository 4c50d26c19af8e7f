import "server-only";
// Step 1: one event delivered twice → exactly one transition, and the second answer `duplicate`.
// Through the provider when it can send a test event (its signing, its HTTP client, our public
// endpoint), then a manual redelivery of that delivery; otherwise signed here and posted twice.
// In four stages: ask the provider for its test event, have it delivered twice (by the provider,
// or here), read what the ledger kept, and judge the answers.
import { describeError } from "../../core/log";
import { isHookMissing, isProviderError } from "../provider/errors";
import { CANARY_TENANT_ID } from "../../core/tenancy/canary";
import { canaryEvent, canaryLastSequence, postSigned } from "./canary-events";
import { claimIndexPresent } from "./claim-index";
import {
  HOOK_MISSING_FIX,
  hookMissingSummary,
  stepReporter,
  type CanaryDelivery,
  type ReadinessContext,
  type StepResult,
} from "./types";
import { waitFor } from "./wait-for";

const TITLE = "One event delivered twice → one transition, the second answered duplicate";
const INDEX_FIX =
  "The claim's unique index on processed_events (tenant_id, event_id) is missing: run `npm run db:migrate` " +
  "(or recreate the index). Without it a retried delivery cannot be recognised: keep retries off until this passes.";

type Receipt = { status: number; outcome: string | null; error: string | null; receivedAt: Date };
type Evidence = Record<string, unknown>;
/** Why the step failed, and what to do about it. */
type Failure = { failed: true; summary: string; fix: string; delivery: CanaryDelivery };
type Delivered = { failed: false; eventId: string; via: "provider" | "local"; receipts: Receipt[] };

const failure = (summary: string, fix: string, delivery: CanaryDelivery = null): Failure => ({
  failed: true,
  summary,
  fix,
  delivery,
});
const isAccepted = (receipt: Receipt) => receipt.status >= 200 && receipt.status < 300;

export async function checkDuplicateDelivery(
  context: ReadinessContext,
): Promise<{ result: StepResult; delivery: CanaryDelivery }> {
  const evidence: Evidence = {};
  const report = stepReporter("duplicate_delivery", TITLE, evidence);
  const indexPresent = await claimIndexPresent(context.db);
  evidence.claim_unique_index = indexPresent ? "present" : "missing";

  const delivered = await deliverTwice(context, evidence, indexPresent);
  if (delivered.failed) {
    return { result: report(false, delivered.summary, delivered.fix), delivery: delivered.delivery };
  }
  const { eventId, via, receipts } = delivered;
  evidence.event_id = eventId;
  evidence.via = via;
  evidence.receipts = receipts.map(describeReceipt);
  const ledger = await context.db.processedEvent.findMany({
    where: { tenantId: CANARY_TENANT_ID, eventId },
    select: { outcome: true },
  });
  evidence.ledger_rows = ledger.map((row) => row.outcome);
  const delivery: CanaryDelivery = { eventId, via };
  const verdict = judge({ receipts, ledger, indexPresent, evidence, context });
  return verdict.failed
    ? { result: report(false, verdict.summary, verdict.fix), delivery }
    : {
        result: report(
          true,
          `${via === "provider" ? "provider test event" : "locally signed event"} ${eventId}: ${verdict.outcomes.join(" → ")}, one ledger row (${ledger[0]!.outcome})`,
          null,
        ),
        delivery,
      };
}

/** The same event delivered twice: by the provider when it can send a test event, else by us. */
async function deliverTwice(
  context: ReadinessContext,
  evidence: Evidence,
  indexPresent: boolean,
): Promise<Failure | Delivered> {
  if (context.hookId && context.hookMissing) {
    evidence.provider_hook = { hook_id: context.hookId, known_to_provider: false };
    return failure(hookMissingSummary(context.hookId), HOOK_MISSING_FIX);
  }
  const testEvent = await askForTestEvent(context, evidence);
  if (testEvent && typeof testEvent !== "string") return testEvent;
  return testEvent
    ? deliverThroughProvider(context, evidence, testEvent, indexPresent)
    : deliverLocally(context, evidence);
}

/** The provider's test event's id; null when the provider cannot send one (we sign it here). */
async function askForTestEvent(context: ReadinessContext, evidence: Evidence): Promise<string | null | Failure> {
  if (!context.provider || !context.hookId) {
    evidence.provider_test_event = context.hookId
      ? "no provider client"
      : "no webhook registered: signed locally instead";
    return null;
  }
  try {
    const sent = await context.provider.sendTestEvent({
      hookId: context.hookId,
      tenantId: CANARY_TENANT_ID,
      idempotencyKey: `keyhook-readiness-${context.runId}`,
    });
    evidence.provider_test_event = { event_id: sent.eventId, sequence: sent.sequence };
    return sent.eventId;
  } catch (error) {
    if (isHookMissing(error)) {
      evidence.provider_error = describeError(error);
      return failure(hookMissingSummary(context.hookId), HOOK_MISSING_FIX);
    }
    if (!isProviderError(error, "not_found")) {
      evidence.provider_error = describeError(error);
      return failure(
        `the provider refused the test event: ${describeError(error)}`,
        "Check PROVIDER_URL, PROVIDER_API_KEY and the webhook registration on Settings, then run the check again.",
      );
    }
    evidence.provider_test_event = "not supported by the provider: signed locally instead";
    return null;
  }
}

function receiptsOf(context: ReadinessContext, eventId: string): Promise<Receipt[]> {
  return context.db.receipt.findMany({
    where: { eventId, tenantId: CANARY_TENANT_ID },
    orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
    select: { status: true, outcome: true, error: true, receivedAt: true },
  });
}

/** The provider's first delivery of its test event, then a redelivery of that very delivery. */
async function deliverThroughProvider(
  context: ReadinessContext,
  evidence: Evidence,
  eventId: string,
  indexPresent: boolean,
): Promise<Failure | Delivered> {
  const provider = context.provider!;
  const hookId = context.hookId!;
  const delivery: CanaryDelivery = { eventId, via: "provider" };
  // Without the claim index every attempt fails the same way: the first refusal is enough.
  const first = await waitFor(
    async () => {
      const rows = await receiptsOf(context, eventId);
      return rows.some(isAccepted) || (!indexPresent && rows.length > 0) ? rows : null;
    },
    { timeoutMs: context.waitTimeoutMs },
  );
  if (!first || !first.some(isAccepted)) return whyNotAccepted(context, evidence, eventId, indexPresent);

  // The provider records an attempt once our answer has reached it, which may be well after our
  // receipt committed (a distant provider): wait for it, within the same bound.
  const listedFrom = Date.now();
  const firstAttempt = await waitFor(
    async () => (await provider.listDeliveries({ hookId, eventId, limit: 50 })).items.at(-1),
    { timeoutMs: context.waitTimeoutMs, intervalMs: 100 },
  );
  evidence.provider_listed_after_ms = firstAttempt ? Date.now() - listedFrom : null;
  if (!firstAttempt) {
    return failure(
      `the provider had not listed its delivery of its own test event ${context.waitTimeoutMs} ms after we accepted it`,
      `The provider records an attempt once our answer reaches it, and had not within the check's wait (${context.waitTimeoutMs} ms). ` +
        "Run the check again; if it repeats, the provider's delivery history lags too far to tell what was retried: take it up with the provider before enabling retries.",
      delivery,
    );
  }
  await provider.redeliver({ hookId, deliveryId: firstAttempt.id });
  const receipts =
    (await waitFor(
      async () => {
        const rows = await receiptsOf(context, eventId);
        return rows.length > first.length ? rows : null;
      },
      { timeoutMs: context.waitTimeoutMs },
    )) ?? (await receiptsOf(context, eventId));
  return { failed: false, eventId, via: "provider", receipts };
}

/** The test event never got a 2xx from us: a missing index, our refusal, or nothing reached us. */
async function whyNotAccepted(
  context: ReadinessContext,
  evidence: Evidence,
  eventId: string,
  indexPresent: boolean,
): Promise<Failure> {
  const delivery: CanaryDelivery = { eventId, via: "provider" };
  const rows = await receiptsOf(context, eventId);
  evidence.receipts = rows.map(describeReceipt);
  if (!indexPresent) return failure("the claim's unique index is missing", INDEX_FIX, delivery);
  if (rows.length > 0)
    return failure(
      `the test event was answered ${rows.map((r) => r.status).join(", ")}`,
      "The endpoint did not accept the test event: see the receipts above and the app log.",
      delivery,
    );
  // Nothing reached us: did the provider try at all (a queue behind), or try and miss us (the URL)?
  const tried = (await context.provider!.listDeliveries({ hookId: context.hookId!, eventId, limit: 50 })).items;
  evidence.provider_attempts = tried.map((a) => ({ at: a.at.toISOString(), status: a.statusCode, error: a.error }));
  return tried.length === 0
    ? failure(
        `the provider had not sent its test event ${context.waitTimeoutMs} ms after accepting it`,
        "The provider lists no attempt yet: its delivery queue is behind. Run the check again; if it repeats, check the provider's status.",
        delivery,
      )
    : failure(
        `the provider tried ${tried.length} time(s) to deliver its test event, and none reached us`,
        `No delivery of the test event reached ${context.webhookUrl}: check that the registered webhook URL (Settings) is this deployment's public endpoint, and any proxy in between.`,
        delivery,
      );
}

/** A canary event signed here and posted twice to our public endpoint. */
async function deliverLocally(context: ReadinessContext, evidence: Evidence): Promise<Failure | Delivered> {
  const event = canaryEvent({ sequence: ((await canaryLastSequence(context.db)) ?? 0) + 1, label: "dup" });
  const secret = context.secrets[0]!;
  const answers = [];
  for (let i = 0; i < 2; i++)
    answers.push(
      await postSigned({
        url: context.webhookUrl,
        body: event.body,
        eventId: event.eventId,
        secret,
        timeoutMs: context.ingestTimeoutMs * 2 + 5_000,
      }),
    );
  evidence.answers = answers;
  const unanswered = answers.find((answer) => answer.status === 0);
  if (unanswered) {
    return failure(
      `the endpoint did not answer: ${unanswered.body}`,
      `Check that ${context.webhookUrl} is this deployment's public endpoint (PROVIDER_WEBHOOK_URL, or --webhook-url).`,
    );
  }
  return { failed: false, eventId: event.eventId, via: "local", receipts: await receiptsOf(context, event.eventId) };
}

/** Exactly one transition and every later answer a 2xx duplicate, over one ledger row. */
function judge(options: {
  receipts: Receipt[];
  ledger: { outcome: string }[];
  indexPresent: boolean;
  evidence: Evidence;
  context: ReadinessContext;
}): { failed: true; summary: string; fix: string } | { failed: false; outcomes: (string | null)[] } {
  const { receipts, ledger, evidence, context } = options;
  if (!options.indexPresent) return failure("the claim's unique index is missing", INDEX_FIX);
  // A transient refusal before the first success (the provider retried it) is what retries are
  // for; after the first success every delivery must be a 2xx duplicate.
  const firstOk = receipts.findIndex(isAccepted);
  const retriedBefore = firstOk > 0 ? receipts.slice(0, firstOk) : [];
  if (retriedBefore.length > 0) evidence.refused_before_first_success = retriedBefore.map(describeReceipt);
  const afterFirst = firstOk < 0 ? receipts : receipts.slice(firstOk);
  const accepted = afterFirst.filter(isAccepted);
  if (afterFirst.length < 2) {
    return failure(
      `the event was accepted ${accepted.length} time(s), not twice`,
      `The second delivery did not arrive within ${context.waitTimeoutMs} ms: check the provider's redelivery and ${context.webhookUrl}.`,
    );
  }
  if (accepted.length !== afterFirst.length) {
    const bad = afterFirst.find((r) => !isAccepted(r))!;
    return failure(
      `a delivery was answered ${bad.status} (${bad.error ?? "no reason"})`,
      "Every delivery of a valid event must be answered 2xx: see the app log for the failure.",
    );
  }
  const transitions = accepted.filter((r) => r.outcome !== "duplicate");
  if (ledger.length !== 1 || transitions.length !== 1) {
    return failure(
      `${transitions.length} deliveries changed state and ${ledger.length} ledger rows exist for one event`,
      INDEX_FIX,
    );
  }
  if (accepted[0]!.outcome === "duplicate" || accepted.slice(1).some((r) => r.outcome !== "duplicate")) {
    return failure(
      `answers in order: ${accepted.map((r) => r.outcome).join(", ")}`,
      "Only the first delivery may change state; every later one must be answered duplicate.",
    );
  }
  return { failed: false, outcomes: accepted.map((r) => r.outcome) };
}

function describeReceipt(r: Receipt) {
  return { at: r.receivedAt.toISOString(), status: r.status, outcome: r.outcome, error: r.error };
}
