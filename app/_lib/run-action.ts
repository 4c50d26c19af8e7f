import "server-only";
// The only way to write a server action: `export const x = action("permission", schema, handler)`.
// The wrapper authenticates (session + session version), checks the permission from
// lib/auth/permissions.ts, validates the form with the zod schema, runs the handler, and maps
// the outcome to a form result. Every denial (a role without the permission, or a lib call that
// refuses with not_found/forbidden, e.g. another district's key) is audited with actor, action
// and target. An unexpected failure is logged and reported without internals. The handler may
// still call lib functions that authorize again: that is the data layer's own check.
import { z } from "zod";
import { currentActor } from "./session";
import { recordAudit } from "@/lib/audit/record-audit";
import { auditActor, type Actor } from "@/lib/auth/actor";
import { can, PERMISSIONS, type Permission } from "@/lib/auth/permissions";
import { isAppError } from "@/lib/errors";
import { describeError, log } from "@/lib/log";

import type { ActionResult } from "@/components/action-result";

export type { ActionResult };
export type FormAction = (previous: ActionResult | null, form?: FormData) => Promise<ActionResult>;
/**
 * What a handler answers: a message (the action did what was asked), or `{ ok: false, message }`
 * when it ran to the end but the outcome is bad news the user must act on (a readiness run that
 * failed): shown as an error, not as a success.
 */
export type HandlerAnswer = string | { ok: boolean; message: string };

export type ActionDeclaration<S extends z.ZodType = z.ZodType> = {
  permission: Permission;
  schema: S;
  handler: (input: z.output<S>, actor: Actor) => Promise<HandlerAnswer>;
  /** What the action is aimed at, for the audit row of a denial (a key id, a user id …). */
  target?: (input: z.output<S>) => string | null | undefined;
};

// Which exported functions were declared here, and with what: the action-permission test reads it.
const declarations = new WeakMap<object, ActionDeclaration>();

export function action<S extends z.ZodType>(
  permission: Permission,
  schema: S,
  handler: (input: z.output<S>, actor: Actor) => Promise<HandlerAnswer>,
  options: { target?: (input: z.output<S>) => string | null | undefined } = {},
): FormAction {
  if (!Object.hasOwn(PERMISSIONS, permission))
    throw new Error(`action declared with unknown permission ${String(permission)}`);
  const declaration: ActionDeclaration<S> = { permission, schema, handler, target: options.target };
  const run: FormAction = async (_previous, form) => executeAction(declaration, await currentActor(), form);
  declarations.set(run, declaration as unknown as ActionDeclaration);
  return run;
}

export function declarationOf(fn: unknown): ActionDeclaration | undefined {
  return typeof fn === "function" ? declarations.get(fn) : undefined;
}

const NOT_FOUND = "Not found (or not yours to change).";

/** The wrapper's body, with the actor given: the tests call it with an actor of their choosing. */
export async function executeAction<S extends z.ZodType>(
  declaration: ActionDeclaration<S>,
  actor: Actor | null,
  form?: FormData,
): Promise<ActionResult> {
  const at = Date.now();
  if (!actor) return { ok: false, message: "Your session has ended. Sign in again.", at };
  const parsed = declaration.schema.safeParse(formObject(form));
  const target = parsed.success ? safeTarget(declaration, parsed.data) : null;
  if (!can(actor, declaration.permission)) {
    await auditDenial(actor, declaration.permission, target, "permission");
    return { ok: false, message: NOT_FOUND, at };
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      message: capitalize(issue?.message ?? "Check the form and try again."),
      at,
      ...fieldOf(issue?.path[0]),
    };
  }
  try {
    const answer = await declaration.handler(parsed.data, actor);
    return typeof answer === "string"
      ? { ok: true, message: answer, at: Date.now() }
      : { ok: answer.ok, message: answer.message, at: Date.now() };
  } catch (error) {
    if (isAppError(error)) {
      if (error.code === "not_found" || error.code === "forbidden")
        await auditDenial(actor, declaration.permission, target, error.code);
      return {
        ok: false,
        message: error.code === "not_found" ? NOT_FOUND : capitalize(error.publicMessage),
        at: Date.now(),
        ...fieldOf(error.field),
      };
    }
    log.error("action failed", { action: declaration.permission, actor: actor.id, error: describeError(error) });
    return {
      ok: false,
      message: "Something went wrong and the action may not have completed. Try again.",
      at: Date.now(),
    };
  }
}

async function auditDenial(actor: Actor, permission: Permission, target: string | null, reason: string): Promise<void> {
  try {
    await recordAudit({
      actor: auditActor(actor),
      action: permission,
      tenantId: actor.tenantId,
      target,
      outcome: "denied",
      details: { reason },
    });
  } catch (error) {
    // The denial itself stands; a failed audit write must not turn it into an error page.
    log.error("denied-action audit failed", { action: permission, actor: actor.id, error: describeError(error) });
  }
}

function safeTarget<S extends z.ZodType>(declaration: ActionDeclaration<S>, input: z.output<S>): string | null {
  try {
    return declaration.target?.(input)?.slice(0, 300) || null;
  } catch {
    return null;
  }
}

function formObject(form: FormData | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  if (!form || typeof form.entries !== "function") return values;
  for (const [name, value] of form.entries()) if (typeof value === "string" && !(name in values)) values[name] = value;
  return values;
}

function fieldOf(name: PropertyKey | undefined): { field?: string } {
  return typeof name === "string" && name ? { field: name } : {};
}

function capitalize(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** A form text field as the forms always read it: trimmed, cut at `max`, "" when missing. */
export function text(max = 500) {
  return z.preprocess((value) => (typeof value === "string" ? value.trim().slice(0, max) : ""), z.string());
}

/** Taken exactly as typed (passwords): not trimmed or shortened; the service checks it. */
export function verbatim() {
  return z.preprocess((value) => (typeof value === "string" ? value : ""), z.string());
}
