"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { bulkRedeliver } from "@/lib/views/deliveries/bulk-redeliver";
import { parseDeliveryFilters, type DeliveryFilters } from "@/lib/views/deliveries/delivery-filters";
import { replayStoredEvent } from "@/lib/operations/redelivery/replay-stored-event";
import { requestRedelivery } from "@/lib/operations/redelivery/request-redelivery";
import { AppError } from "@/lib/core/errors";
import { action, text } from "../../_lib/run-action";

const storedEvent = z.object({ tenantId: text(200), eventId: text(200) });

export const replayLocallyAction = action(
  "delivery.replay",
  storedEvent,
  async (input, actor) => {
    const result = await replayStoredEvent({ actor, tenantId: input.tenantId, eventId: input.eventId });
    revalidatePath("/deliveries");
    if (result.outcome === "unavailable")
      return {
        ok: false,
        message: `Replay of ${result.eventId} could not be committed; nothing was changed. Try again.`,
      };
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

// The bulk forms carry the list's own parameters (its window pinned to what the page showed).
const listFilters = z.object({ from: text(40), to: text(40), status: text(20), tenant: text(200), event: text(200) });

function filtersOf(input: z.output<typeof listFilters>): DeliveryFilters {
  const { filters, errors } = parseDeliveryFilters(input);
  if (errors.length) throw new AppError("bad_request", errors.join(" "));
  return filters;
}

/** "evt_a (district-1), evt_b (district-2) and 3 more": the rows a bulk action names. */
function named(rows: { eventId: string; tenantId: string | null }[], max = 10): string {
  const names = rows.slice(0, max).map((r) => (r.tenantId ? `${r.eventId} (${r.tenantId})` : r.eventId));
  return rows.length > max ? `${names.join(", ")} and ${rows.length - max} more` : names.join(", ");
}

const deliveries = (n: number) => `${n} failed deliver${n === 1 ? "y" : "ies"}`;

export const bulkDryRunAction = action("delivery.replay", listFilters, async (input, actor) => {
  const { rows } = await bulkRedeliver({ actor, filters: filtersOf(input), dryRun: true });
  return rows.length === 0
    ? "Dry run: no delivery in this list failed; nothing would be redelivered."
    : `Dry run: ${deliveries(rows.length)} of this list would be redelivered: ${named(rows)}.`;
});

export const bulkRedeliverAction = action("delivery.replay", listFilters, async (input, actor) => {
  const { rows, refused } = await bulkRedeliver({ actor, filters: filtersOf(input), dryRun: false });
  revalidatePath("/deliveries");
  if (rows.length === 0) return "Nothing was redelivered: no delivery in this list failed any more.";
  const sent = rows.filter((row) => !refused.some((r) => r.eventId === row.eventId));
  if (refused.length === 0)
    return `The provider is redelivering ${deliveries(rows.length)}: ${named(rows)}. Their new attempts appear in the list as they arrive.`;
  return {
    ok: false,
    message: `The provider refused ${refused.length} of ${rows.length} (${refused[0]!.error}); redelivering ${sent.length}${sent.length ? `: ${named(sent)}` : ""}.`,
  };
});
