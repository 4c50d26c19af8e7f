import "server-only";
// The glue every server action shares: who is acting, run the lib call, map the outcome to a
// message the form shows. An unexpected failure is logged and reported without internals.
import { currentActor } from "./session";
import type { Actor } from "@/lib/auth/actor";
import { isAppError } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import type { ActionResult } from "@/components/action-result";

export type { ActionResult };

export async function runAction(name: string, run: (actor: Actor) => Promise<string>): Promise<ActionResult> {
  const actor = await currentActor();
  if (!actor) return { ok: false, message: "Your session has ended. Sign in again.", at: Date.now() };
  try {
    return { ok: true, message: await run(actor), at: Date.now() };
  } catch (error) {
    if (isAppError(error)) {
      const message = error.code === "not_found" ? "Not found (or not yours to change)." : error.publicMessage;
      return { ok: false, message: message.charAt(0).toUpperCase() + message.slice(1), at: Date.now() };
    }
    log.error("action failed", { action: name, actor: actor.id, error: describeError(error) });
    return { ok: false, message: "Something went wrong and the action may not have completed. Try again.", at: Date.now() };
  }
}

export function field(form: FormData, name: string, max = 500): string {
  const value = form.get(name);
  return typeof value === "string" ? value.trim().slice(0, max) : "";
}
