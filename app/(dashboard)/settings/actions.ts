"use server";
import { revalidatePath } from "next/cache";
import { authorize } from "@/lib/auth/permissions";
import { registerWebhook } from "@/lib/settings/register-webhook";
import { runAction, type ActionResult } from "../../_lib/run-action";

// Authorized here and again in the service, so a crafted POST to the action id is refused too.
// It reads nothing from the form: the URL is the one this deployment's configuration names.
export async function registerWebhookAction(): Promise<ActionResult> {
  return runAction("webhook.register", async (actor) => {
    authorize(actor, "settings.manage");
    const result = await registerWebhook({ actor });
    revalidatePath("/settings");
    return result.created
      ? `Registered ${result.url} with the provider as hook ${result.hookId}.`
      : `${result.url} was already registered as hook ${result.hookId}; nothing changed.`;
  });
}
