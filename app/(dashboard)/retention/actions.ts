"use server";
import { plural } from "@/components/ui/format";
import { revalidatePath } from "next/cache";
import { saveRetentionSettings } from "@/lib/overview/retention-view";
import { field, runAction, type ActionResult } from "../../_lib/run-action";

// Numbers are parsed leniently here and validated by the retention service, whose message
// (naming the window and the retry horizon) is what the form shows.
const number = (raw: string) => (raw === "" ? Number.NaN : Number(raw));

export async function saveRetentionAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("settings.update", async (actor) => {
    const payload = field(form, "payloadRetentionDays", 10);
    const saved = await saveRetentionSettings({
      actor,
      retentionDays: number(field(form, "retentionDays", 10)),
      retryHorizonHours: number(field(form, "retryHorizonHours", 10)),
      payloadRetentionDays: payload === "" ? undefined : number(payload),
    });
    revalidatePath("/retention");
    return `Saved: claims kept ${plural(saved.retentionDays, "day")}, payloads ${plural(saved.payloadRetentionDays, "day")}, provider retry horizon ${saved.retryHorizonHours} h.`;
  });
}
