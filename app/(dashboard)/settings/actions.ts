"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import {
  createAlertChannel,
  deleteAlertChannel,
  setAlertChannelEnabled,
} from "@/lib/operations/notifications/manage-channels";
import { sendTestMessage } from "@/lib/operations/notifications/send-test-message";
import { registerWebhook } from "@/lib/operations/provider/register-webhook";
import { action, text } from "../../_lib/run-action";

// It reads nothing from the form: the URL is the one this deployment's configuration names.
export const registerWebhookAction = action("settings.manage", z.object({}), async (_input, actor) => {
  const result = await registerWebhook({ actor });
  revalidatePath("/settings");
  if (!result.created)
    return `The provider confirms ${result.url} is registered as hook ${result.hookId}; nothing changed.`;
  return result.replacedHookId
    ? `The provider no longer knew hook ${result.replacedHookId}: registered ${result.url} again as hook ${result.hookId}.`
    : `Registered ${result.url} with the provider as hook ${result.hookId}.`;
});

// Alert channels. The wrapper checks settings.manage before reading the form; the lib checks
// again and validates each kind's fields (a bad URL or address comes back as the form's message).
const oneChannel = z.object({ channelId: text(100) });
const byChannelId = { target: (input: { channelId: string }) => input.channelId };
const channelKindLabel: Record<string, string> = {
  slack: "Slack",
  webhook: "JSON webhook",
  email: "email",
  audit_stream: "audit stream",
};

export const createAlertChannelAction = action(
  "settings.manage",
  z.object({
    kind: text(20),
    name: text(200),
    target: text(2_000),
    smtpUrl: text(2_000),
    fromAddress: text(400),
    receivesCheckpoints: text(10),
  }),
  async (input, actor) => {
    const created = await createAlertChannel({ actor, input });
    revalidatePath("/settings");
    const what = `Added the ${channelKindLabel[created.kind] ?? created.kind} channel "${created.name}".`;
    return created.secret
      ? `${what} Its signing secret, shown only now — give it to the receiver to verify the webhook-signature header: ${created.secret}`
      : what;
  },
  { target: (input) => input.name },
);

export const enableAlertChannelAction = action(
  "settings.manage",
  oneChannel,
  async (input, actor) => {
    const result = await setAlertChannelEnabled({ actor, channelId: input.channelId, enabled: true });
    revalidatePath("/settings");
    return result.changed ? `"${result.name}" receives alerts again.` : `"${result.name}" was already enabled.`;
  },
  byChannelId,
);

export const disableAlertChannelAction = action(
  "settings.manage",
  oneChannel,
  async (input, actor) => {
    const result = await setAlertChannelEnabled({ actor, channelId: input.channelId, enabled: false });
    revalidatePath("/settings");
    return result.changed
      ? `"${result.name}" is paused: no alerts are sent to it.`
      : `"${result.name}" was already paused.`;
  },
  byChannelId,
);

export const deleteAlertChannelAction = action(
  "settings.manage",
  oneChannel,
  async (input, actor) => {
    const result = await deleteAlertChannel({ actor, channelId: input.channelId });
    revalidatePath("/settings");
    return `Deleted the channel "${result.name}".`;
  },
  byChannelId,
);

export const testAlertChannelAction = action(
  "settings.manage",
  oneChannel,
  async (input, actor) => {
    const result = await sendTestMessage({ actor, channelId: input.channelId });
    revalidatePath("/settings");
    return { ok: result.delivered, message: result.message };
  },
  byChannelId,
);
