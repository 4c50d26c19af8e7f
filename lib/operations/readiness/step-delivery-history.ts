import "server-only";
// Step 3: the provider's delivery history shows the attempts of step 1's event in the order we
// received them — reconciled one by one with our receipts (count, order, status where the
// provider saw one). A history that loses or reorders attempts cannot be trusted to say what a
// retry will do.
import { describeError } from "../../core/log";
import type { ProviderDeliveryAttempt } from "../provider/client";
import { CANARY_TENANT_ID } from "../../core/tenancy/canary";
import {
  HOOK_MISSING_FIX,
  hookMissingSummary,
  stepReporter,
  type CanaryDelivery,
  type ReadinessContext,
  type StepResult,
} from "./types";
import { waitFor } from "./wait-for";

const TITLE = "The provider's delivery history matches what we received, in order";

export async function checkDeliveryHistory(context: ReadinessContext, delivery: CanaryDelivery): Promise<StepResult> {
  const evidence: Record<string, unknown> = {};
  const done = stepReporter("delivery_history", TITLE, evidence);

  if (context.hookId && context.hookMissing)
    return done(false, `${hookMissingSummary(context.hookId)}: there is no history to reconcile`, HOOK_MISSING_FIX);
  if (!delivery)
    return done(
      false,
      "no canary event to reconcile (the duplicate step did not get one delivered)",
      "Fix the first step, then run the check again.",
    );
  if (delivery.via !== "provider" || !context.provider || !context.hookId) {
    return done(
      false,
      "the event did not come through the provider, so there is no provider history of it",
      context.hookId
        ? "The provider cannot send a test event: reconcile its delivery history with our receipts by hand (Deliveries page) before enabling retries."
        : "No webhook is registered at the provider: register it on Settings (or start the worker with PROVIDER_WEBHOOK_URL).",
    );
  }

  const receipts = await context.db.receipt.findMany({
    where: { eventId: delivery.eventId, tenantId: CANARY_TENANT_ID, source: "provider" },
    orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
    select: { status: true, receivedAt: true, outcome: true },
  });
  evidence.receipts = receipts.map((r) => ({ at: r.receivedAt.toISOString(), status: r.status, outcome: r.outcome }));

  // The provider records an attempt once it has our answer: wait until it has them all.
  let attempts: ProviderDeliveryAttempt[] = [];
  try {
    attempts =
      (await waitFor(
        async () => {
          const found = await allAttempts(context, delivery.eventId);
          return found.length >= receipts.length ? found : null;
        },
        { timeoutMs: context.waitTimeoutMs, intervalMs: 100 },
      )) ?? (await allAttempts(context, delivery.eventId));
  } catch (error) {
    return done(
      false,
      `could not read the provider's delivery history: ${describeError(error)}`,
      "Check PROVIDER_URL and PROVIDER_API_KEY (Settings shows whether the provider answers).",
    );
  }
  evidence.provider_attempts = attempts.map((a) => ({
    id: a.id,
    attempt: a.attempt,
    trigger: a.trigger,
    at: a.at.toISOString(),
    status: a.statusCode,
  }));

  if (attempts.length !== receipts.length) {
    return done(
      false,
      `the provider shows ${attempts.length} attempt(s) of ${delivery.eventId}, we received ${receipts.length}`,
      attempts.length < receipts.length
        ? "The provider's delivery history is missing attempts we received: it cannot be used to tell what was retried. Take it up with the provider before enabling retries."
        : "The provider shows attempts we never received (lost on the way, or sent elsewhere): check the registered URL and any proxy in between.",
    );
  }
  for (let i = 0; i < attempts.length; i++) {
    const status = attempts[i]!.statusCode;
    if (status !== null && status !== receipts[i]!.status) {
      return done(
        false,
        `attempt ${i + 1}: the provider saw ${status}, we answered ${receipts[i]!.status}`,
        "The provider's attempts are not in the order we received them, or something between us changes our answers: check proxies and the registered URL.",
      );
    }
  }
  return done(
    true,
    `${attempts.length} attempts, in the order received: ${attempts.map((a, i) => `${a.trigger} ${a.statusCode ?? "?"}/${receipts[i]!.outcome}`).join(", ")}`,
    null,
  );
}

async function allAttempts(context: ReadinessContext, eventId: string): Promise<ProviderDeliveryAttempt[]> {
  const items: ProviderDeliveryAttempt[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const result = await context.provider!.listDeliveries({ hookId: context.hookId!, eventId, cursor, limit: 100 });
    items.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  // The provider lists newest first; ours is oldest first.
  return items.sort((a, b) => a.at.getTime() - b.at.getTime() || a.attempt - b.attempt);
}
