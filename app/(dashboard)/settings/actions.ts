"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { registerWebhook } from "@/lib/settings/register-webhook";
import { action } from "../../_lib/run-action";

// It reads nothing from the form: the URL is the one this deployment's configuration names.
export const registerWebhookAction = action("settings.manage", z.object({}), async (_input, actor) => {
  const result = await registerWebhook({ actor });
  revalidatePath("/settings");
  return result.created
    ? `Registered ${result.url} with the provider as hook ${result.hookId}.`
    : `${result.url} was already registered as hook ${result.hookId}; nothing changed.`;
});
