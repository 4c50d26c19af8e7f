"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { resolveQuarantinedEvent } from "@/lib/operations/quarantine/resolve-quarantined-event";
import { action, text } from "../../_lib/run-action";

export const resolveQuarantineAction = action(
  "quarantine.resolve",
  z.object({ id: text(20), resolution: text(40), note: text(500) }),
  async (input, actor) => {
    const result = await resolveQuarantinedEvent({
      actor,
      id: input.id,
      resolution: input.resolution,
      note: input.note,
    });
    revalidatePath("/quarantine");
    return result.outcome === "resolved"
      ? `${result.eventId} marked resolved.`
      : `${result.eventId} was already resolved.`;
  },
  { target: (input) => input.id },
);
