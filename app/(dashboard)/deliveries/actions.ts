"use server";
import { revalidatePath } from "next/cache";
import { bulkRedeliverFailed } from "@/lib/deliveries/bulk-redeliver-failed";
import { replayStoredEvent } from "@/lib/deliveries/replay-stored-event";
import { requestRedelivery } from "@/lib/deliveries/request-redelivery";
import { AppError } from "@/lib/errors";
import { parseUtcDateTime } from "@/lib/listing/query-filters";
import { field, runAction, type ActionResult } from "../../_lib/run-action";

export async function replayLocallyAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("delivery.replay", async (actor) => {
    const result = await replayStoredEvent({ actor, tenantId: field(form, "tenantId", 200), eventId: field(form, "eventId", 200) });
    revalidatePath("/deliveries");
    if (result.status !== 200) return `Replay of ${result.eventId} could not be processed (HTTP ${result.status}); nothing was changed. Try again.`;
    if (result.outcome === "duplicate") {
      return `Replayed ${result.eventId}: duplicate — it was already processed${result.firstOutcome ? ` (${result.firstOutcome})` : ""}, so nothing changed.`;
    }
    return `Replayed ${result.eventId}: ${result.outcome}${result.reason ? ` (${result.reason})` : ""}.`;
  });
}

export async function redeliverAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("delivery.replay", async (actor) => {
    const eventId = field(form, "eventId", 200);
    await requestRedelivery({ actor, deliveryId: field(form, "deliveryId", 200), eventId, tenantId: field(form, "tenantId", 200) || null });
    return `The provider will redeliver ${eventId}. Its new attempt and our answer (a duplicate, if it was applied) appear here when it arrives.`;
  });
}

function windowFrom(form: FormData): { since: Date; until: Date } {
  const errors: string[] = [];
  const since = parseUtcDateTime(field(form, "from", 40) || undefined, "From", errors);
  const until = parseUtcDateTime(field(form, "to", 40) || undefined, "To", errors);
  if (errors.length) throw new AppError("bad_request", errors.join(" "));
  if (!since || !until) throw new AppError("bad_request", "Give both ends of the window (From and To, UTC).");
  return { since, until };
}

export async function bulkDryRunAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("delivery.bulk_replay", async (actor) => {
    const { count } = await bulkRedeliverFailed({ actor, ...windowFrom(form), dryRun: true });
    return `Dry run: ${count} failed deliver${count === 1 ? "y" : "ies"} in this window would be redelivered.`;
  });
}

export async function bulkRedeliverAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("delivery.bulk_replay", async (actor) => {
    const { count } = await bulkRedeliverFailed({ actor, ...windowFrom(form), dryRun: false });
    return `The provider is redelivering ${count} failed deliver${count === 1 ? "y" : "ies"}.`;
  });
}
