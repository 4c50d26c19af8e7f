"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { bulkRedeliverFailed } from "@/lib/deliveries/bulk-redeliver-failed";
import { replayStoredEvent } from "@/lib/deliveries/replay-stored-event";
import { requestRedelivery } from "@/lib/deliveries/request-redelivery";
import { parseBulkWindow } from "@/lib/deliveries/delivery-filters";
import { action, text } from "../../_lib/run-action";

const storedEvent = z.object({ tenantId: text(200), eventId: text(200) });

export const replayLocallyAction = action(
  "delivery.replay",
  storedEvent,
  async (input, actor) => {
    const result = await replayStoredEvent({ actor, tenantId: input.tenantId, eventId: input.eventId });
    revalidatePath("/deliveries");
    if (result.status !== 200)
      return `Replay of ${result.eventId} could not be processed (HTTP ${result.status}); nothing was changed. Try again.`;
    if (result.outcome === "duplicate") {
      return `Replayed ${result.eventId}: duplicate — it was already processed${result.firstOutcome ? ` (${result.firstOutcome})` : ""}, so nothing changed.`;
    }
    return `Replayed ${result.eventId}: ${result.outcome}${result.reason ? ` (${result.reason})` : ""}.`;
  },
  { target: (input) => `${input.tenantId}/${input.eventId}` },
);

export const redeliverAction = action(
  "delivery.replay",
  z.object({ eventId: text(200), deliveryId: text(200), tenantId: text(200) }),
  async (input, actor) => {
    await requestRedelivery({
      actor,
      deliveryId: input.deliveryId,
      eventId: input.eventId,
      tenantId: input.tenantId || null,
    });
    return `The provider will redeliver ${input.eventId}. Its new attempt and our answer (a duplicate, if it was applied) appear here when it arrives.`;
  },
  { target: (input) => input.deliveryId },
);

const window = z.object({ from: text(40), to: text(40) });

export const bulkDryRunAction = action("delivery.replay", window, async (input, actor) => {
  const { count } = await bulkRedeliverFailed({ actor, ...parseBulkWindow(input), dryRun: true });
  return `Dry run: ${count} failed deliver${count === 1 ? "y" : "ies"} in this window would be redelivered.`;
});

export const bulkRedeliverAction = action("delivery.replay", window, async (input, actor) => {
  const { count } = await bulkRedeliverFailed({ actor, ...parseBulkWindow(input), dryRun: false });
  return `The provider is redelivering ${count} failed deliver${count === 1 ? "y" : "ies"}.`;
});
