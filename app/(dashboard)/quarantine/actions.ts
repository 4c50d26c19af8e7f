"use server";
import { revalidatePath } from "next/cache";
import { resolveQuarantinedEvent } from "@/lib/quarantine/resolve-quarantined-event";
import { field, runAction, type ActionResult } from "../../_lib/run-action";

export async function resolveQuarantineAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("quarantine.resolve", async (actor) => {
    const result = await resolveQuarantinedEvent({ actor, id: field(form, "id", 20), resolution: field(form, "resolution", 40), note: field(form, "note", 500) });
    revalidatePath("/quarantine");
    return result.outcome === "resolved" ? `${result.eventId} marked resolved.` : `${result.eventId} was already resolved.`;
  });
}
