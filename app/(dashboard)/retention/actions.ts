"use server";
import { plural } from "@/components/ui/format";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { updateRetentionSettings } from "@/lib/operations/retention/settings";
import { action, text } from "../../_lib/run-action";

// Numbers are parsed leniently here and validated by the retention service, whose message
// (naming the window and the retry horizon) is what the form shows.
const number = (raw: string) => (raw === "" ? Number.NaN : Number(raw));

export const saveRetentionAction = action(
  "retention.edit",
  z.object({ retentionDays: text(10), retryHorizonHours: text(10), payloadRetentionDays: text(10) }),
  async (input, actor) => {
    const saved = await updateRetentionSettings({
      actor,
      retentionDays: number(input.retentionDays),
      retryHorizonHours: number(input.retryHorizonHours),
      payloadRetentionDays: input.payloadRetentionDays === "" ? undefined : number(input.payloadRetentionDays),
    });
    revalidatePath("/retention");
    return `Saved: claims kept ${plural(saved.retentionDays, "day")}, payloads ${plural(saved.payloadRetentionDays, "day")}, provider retry horizon ${saved.retryHorizonHours} h.`;
  },
);
