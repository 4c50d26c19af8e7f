"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { acknowledgeAlert, resolveAlert } from "@/lib/operations/alerts/act-on-alert";
import { requestDriftCheck } from "@/lib/operations/drift/request-drift-check";
import { action, text } from "../../_lib/run-action";

export const acknowledgeAlertAction = action(
  "alerts.act",
  z.object({ id: text(20) }),
  async (input, actor) => {
    const result = await acknowledgeAlert({ actor, id: input.id });
    revalidatePath("/alerts");
    return result.outcome === "done"
      ? `Acknowledged ${result.subject}.`
      : `${result.subject} was already taken care of.`;
  },
  { target: (input) => `alerts/${input.id}` },
);

export const resolveAlertAction = action(
  "alerts.act",
  z.object({ id: text(20), resolution: text(40), note: text(1000) }),
  async (input, actor) => {
    const result = await resolveAlert({ actor, id: input.id, resolution: input.resolution, note: input.note });
    revalidatePath("/alerts");
    if (result.outcome === "already") return `${result.subject} was already resolved.`;
    if (input.resolution === "resent")
      return `Sent again: outbox ${result.outboxId} is back in the queue under its idempotency key; a new failure opens this alert again.`;
    return result.outboxId
      ? `Resolved ${result.subject}: the revoke is staged for the provider (outbox ${result.outboxId}).`
      : `Resolved ${result.subject}.`;
  },
  { target: (input) => `alerts/${input.id}` },
);

export const runDriftCheckAction = action("drift.run", z.object({}), async (_input, actor) => {
  const result = await requestDriftCheck({ actor });
  revalidatePath("/alerts");
  return result.outcome === "requested"
    ? `Drift check ${result.runId} requested: the worker starts it within seconds, and its differences appear here as alerts.`
    : `Drift check ${result.runId} is already waiting or running.`;
});
