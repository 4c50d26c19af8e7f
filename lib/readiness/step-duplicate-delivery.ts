import "server-only";
// Step 1: one event delivered twice → exactly one transition, and the second answer `duplicate`.
// Through the provider when it can send a test event (its signing, its HTTP client, our public
// endpoint), then a manual redelivery of that delivery; otherwise signed here and posted twice.
import { describeError } from "../log";
import { isHookMissing, isProviderError } from "../provider/errors";
import { CANARY_TENANT_ID } from "./canary";
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

export async function checkDuplicateDelivery(
  context: ReadinessContext,
): Promise<{ result: StepResult; delivery: CanaryDelivery }> {
  const { db } = context;
  const evidence: Record<string, unknown> = {};
  const report = stepReporter("duplicate_delivery", TITLE, evidence);
  const done = (passed: boolean, summary: string, fix: string | null, delivery: CanaryDelivery) => ({
    result: report(passed, summary, fix),
    delivery,
  });
  const indexPresent = await claimIndexPresent(db);
  evidence.claim_unique_index = indexPresent ? "present" : "missing";

  // Through the provider: its test event, then a redelivery of that very delivery.
  let eventId: string | null = null;
  let via: "provider" | "local" = "provider";
  if (context.hookId && context.hookMissing) {
    evidence.provider_hook = { hook_id: context.hookId, known_to_provider: false };
    return done(false, hookMissingSummary(context.hookId), HOOK_MISSING_FIX, null);
  }
  if (context.provider && context.hookId) {
    try {
      const sent = await context.provider.sendTestEvent({
        hookId: context.hookId,
        tenantId: CANARY_TENANT_ID,
        idempotencyKey: `keyhook-readiness-${context.runId}`,
      });
      eventId = sent.eventId;
      evidence.provider_test_event = { event_id: sent.eventId, sequence: sent.sequence };
    } catch (error) {
      if (isHookMissing(error)) {
        evidence.provider_error = describeError(error);
        return done(false, hookMissingSummary(context.hookId), HOOK_MISSING_FIX, null);
      }
      if (!isProviderError(error, "not_found")) {
        evidence.provider_error = describeError(error);
        return done(
          false,
          `the provider refused the test event: ${describeError(error)}`,
          "Check PROVIDER_URL, PROVIDER_API_KEY and the webhook registration on Settings, then run the check again.",
          null,
        );
      }
      evidence.provider_test_event = "not supported by the provider: signed locally instead";
    }
  } else {
    evidence.provider_test_event = context.hookId
      ? "no provider client"
      : "no webhook registered: signed locally instead";
  }

  const receiptsOf = (id: string) =>
    db.receipt.findMany({
      where: { eventId: id, tenantId: CANARY_TENANT_ID },
      orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
      select: { status: true, outcome: true, error: true, receivedAt: true },
    });

  let receipts: Receipt[] = [];
  if (eventId) {
    // Without the claim index every attempt fails the same way: the first refusal is enough.
    const first = await waitFor(
      async () => {
        const rows = await receiptsOf(eventId!);
        return rows.some((r) => r.status >= 200 && r.status < 300) || (!indexPresent && rows.length > 0) ? rows : null;
      },
      { timeoutMs: context.waitTimeoutMs },
    );
    if (!first || !first.some((r) => r.status >= 200 && r.status < 300)) {
      const rows = await receiptsOf(eventId);
      evidence.receipts = rows.map(describeReceipt);
      if (!indexPresent) return done(false, "the claim's unique index is missing", INDEX_FIX, { eventId, via });
      if (rows.length > 0)
        return done(
          false,
          `the test event was answered ${rows.map((r) => r.status).join(", ")}`,
          "The endpoint did not accept the test event: see the receipts above and the app log.",
          { eventId, via },
        );
      // Nothing reached us: did the provider try at all (a queue behind), or try and miss us (the URL)?
      const tried = (await context.provider!.listDeliveries({ hookId: context.hookId!, eventId, limit: 50 })).items;
      evidence.provider_attempts = tried.map((a) => ({ at: a.at.toISOString(), status: a.statusCode, error: a.error }));
      return tried.length === 0
        ? done(
            false,
            `the provider had not sent its test event ${context.waitTimeoutMs} ms after accepting it`,
            "The provider lists no attempt yet: its delivery queue is behind. Run the check again; if it repeats, check the provider's status.",
            { eventId, via },
          )
        : done(
            false,
            `the provider tried ${tried.length} time(s) to deliver its test event, and none reached us`,
            `No delivery of the test event reached ${context.webhookUrl}: check that the registered webhook URL (Settings) is this deployment's public endpoint, and any proxy in between.`,
            { eventId, via },
          );
    }
    // The provider records an attempt once our answer has reached it, which may be well after our
    // receipt committed (a distant provider): wait for it, within the same bound.
    const listedFrom = Date.now();
    const firstAttempt = await waitFor(
      async () =>
        (await context.provider!.listDeliveries({ hookId: context.hookId!, eventId: eventId!, limit: 50 })).items.at(
          -1,
        ),
      { timeoutMs: context.waitTimeoutMs, intervalMs: 100 },
    );
    evidence.provider_listed_after_ms = firstAttempt ? Date.now() - listedFrom : null;
    if (!firstAttempt) {
      return done(
        false,
        `the provider had not listed its delivery of its own test event ${context.waitTimeoutMs} ms after we accepted it`,
        `The provider records an attempt once our answer reaches it, and had not within the check's wait (${context.waitTimeoutMs} ms). ` +
          "Run the check again; if it repeats, the provider's delivery history lags too far to tell what was retried: take it up with the provider before enabling retries.",
        { eventId, via },
      );
    }
    await context.provider!.redeliver({ hookId: context.hookId!, deliveryId: firstAttempt.id });
    receipts =
      (await waitFor(
        async () => {
          const rows = await receiptsOf(eventId!);
          return rows.length > first.length ? rows : null;
        },
        { timeoutMs: context.waitTimeoutMs },
      )) ?? (await receiptsOf(eventId));
  } else {
    via = "local";
    const event = canaryEvent({ sequence: ((await canaryLastSequence(db)) ?? 0) + 1, label: "dup" });
    eventId = event.eventId;
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
      return done(
        false,
        `the endpoint did not answer: ${unanswered.body}`,
        `Check that ${context.webhookUrl} is this deployment's public endpoint (PROVIDER_WEBHOOK_URL, or --webhook-url).`,
        null,
      );
    }
    receipts = await receiptsOf(eventId);
  }
  evidence.event_id = eventId;
  evidence.via = via;
  evidence.receipts = receipts.map(describeReceipt);

  const ledger = await db.processedEvent.findMany({
    where: { tenantId: CANARY_TENANT_ID, eventId },
    select: { outcome: true },
  });
  evidence.ledger_rows = ledger.map((row) => row.outcome);
  const delivery: CanaryDelivery = { eventId, via };

  if (!indexPresent) return done(false, "the claim's unique index is missing", INDEX_FIX, delivery);
  // A transient refusal before the first success (the provider retried it) is what retries are
  // for; after the first success every delivery must be a 2xx duplicate.
  const firstOk = receipts.findIndex((r) => r.status >= 200 && r.status < 300);
  const retriedBefore = firstOk > 0 ? receipts.slice(0, firstOk) : [];
  if (retriedBefore.length > 0) evidence.refused_before_first_success = retriedBefore.map(describeReceipt);
  const afterFirst = firstOk < 0 ? receipts : receipts.slice(firstOk);
  const accepted = afterFirst.filter((r) => r.status >= 200 && r.status < 300);
  if (afterFirst.length < 2) {
    return done(
      false,
      `the event was accepted ${accepted.length} time(s), not twice`,
      `The second delivery did not arrive within ${context.waitTimeoutMs} ms: check the provider's redelivery and ${context.webhookUrl}.`,
      delivery,
    );
  }
  if (accepted.length !== afterFirst.length) {
    const bad = afterFirst.find((r) => r.status < 200 || r.status >= 300)!;
    return done(
      false,
      `a delivery was answered ${bad.status} (${bad.error ?? "no reason"})`,
      "Every delivery of a valid event must be answered 2xx: see the app log for the failure.",
      delivery,
    );
  }
  const transitions = accepted.filter((r) => r.outcome !== "duplicate");
  if (ledger.length !== 1 || transitions.length !== 1) {
    return done(
      false,
      `${transitions.length} deliveries changed state and ${ledger.length} ledger rows exist for one event`,
      INDEX_FIX,
      delivery,
    );
  }
  if (accepted[0]!.outcome === "duplicate" || accepted.slice(1).some((r) => r.outcome !== "duplicate")) {
    return done(
      false,
      `answers in order: ${accepted.map((r) => r.outcome).join(", ")}`,
      "Only the first delivery may change state; every later one must be answered duplicate.",
      delivery,
    );
  }
  return done(
    true,
    `${via === "provider" ? "provider test event" : "locally signed event"} ${eventId}: ${accepted.map((r) => r.outcome).join(" → ")}, one ledger row (${ledger[0]!.outcome})`,
    null,
    delivery,
  );
}

function describeReceipt(r: Receipt) {
  return { at: r.receivedAt.toISOString(), status: r.status, outcome: r.outcome, error: r.error };
}
