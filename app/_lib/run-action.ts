import "server-only";
// The only way to write a server action: `export const x = action("permission", schema, handler)`.
// The wrapper authenticates (session + session version), checks the permission from
// lib/core/auth/permissions.ts, validates the form with the zod schema, runs the handler, and maps
// the outcome to a form result. Every denial (a role without the permission, or a lib call that
// refuses with not_found/forbidden, e.g. another district's key) is audited with actor, action
// and target. An unexpected failure is logged and reported without internals. The handler may
// still call lib functions that authorize again: that is the data layer's own check.
// Second factor: a session still waiting for its factor gets nothing but the actions declared
// `beforeFactor` (the factor pages' own), and an action whose permission is one of
// FRESH_FACTOR_PERMISSIONS answers "confirm it's you" (`stepUp`) instead of running when the
// session's last factor is older than MFA_STEP_UP_MINUTES: the form asks for one and sends again.
import { z } from "zod";
import { currentSession, endedSession } from "./session";
import { recordAudit } from "@/lib/core/audit/record-audit";
import { auditActor, type Actor } from "@/lib/core/auth/actor";
import { sessionNeedsStepUp, type SessionState } from "@/lib/core/auth/load-session";
import { factorMethods } from "@/lib/core/auth/mfa/factor-facts";
import { passkeyAuthenticationOptions } from "@/lib/core/auth/mfa/passkeys";
import { can, FRESH_FACTOR_PERMISSIONS, PERMISSIONS, type Permission } from "@/lib/core/auth/permissions";
import { ENDED_SESSION_MESSAGES } from "@/lib/core/auth/sign-in-messages";
import { isAppError, tooLongMessage } from "@/lib/core/errors";
import { describeError, log } from "@/lib/core/log";

import type { ActionResult } from "@/components/action-result";

export type { ActionResult };
export type FormAction = (previous: ActionResult | null, form?: FormData) => Promise<ActionResult>;
/**
 * What a handler answers: a message (the action did what was asked), or `{ ok: false, message }`
 * when it ran to the end but the outcome is bad news the user must act on (a readiness run that
 * failed): shown as an error, not as a success.
 */
export type HandlerAnswer = string | { ok: boolean; message: string; data?: ActionResult["data"] };

export type ActionDeclaration<S extends z.ZodType = z.ZodType> = {
  permission: Permission;
  schema: S;
  handler: (input: z.output<S>, actor: Actor) => Promise<HandlerAnswer>;
  /** What the action is aimed at, for the audit row of a denial (a key id, a user id …). */
  target?: (input: z.output<S>) => string | null | undefined;
  /** Runs for a session still waiting for its second factor (the factor and enrolment pages' actions). */
  beforeFactor?: boolean;
  /** A fresh factor for this input too, whatever the permission (a resolve that revokes a key). */
  stepUp?: (input: z.output<S>) => boolean;
};

type ActionOptions<S extends z.ZodType> = Pick<ActionDeclaration<S>, "target" | "beforeFactor" | "stepUp">;

// Which exported functions were declared here, and with what: the action-permission test reads it.
const declarations = new WeakMap<object, ActionDeclaration>();

export function action<S extends z.ZodType>(
  permission: Permission,
  schema: S,
  handler: (input: z.output<S>, actor: Actor) => Promise<HandlerAnswer>,
  options: ActionOptions<S> = {},
): FormAction {
  if (!Object.hasOwn(PERMISSIONS, permission))
    throw new Error(`action declared with unknown permission ${String(permission)}`);
  const declaration: ActionDeclaration<S> = { permission, schema, handler, ...options };
  const run: FormAction = async (_previous, form) => {
    const session = await currentSession();
    // A session that names a disabled account says so to its holder; any other ended session, plainly.
    if (!session) return sessionEnded(await endedSession());
    return executeAction(declaration, session, form);
  };
  declarations.set(run, declaration as unknown as ActionDeclaration);
  return run;
}

export function declarationOf(fn: unknown): ActionDeclaration | undefined {
  return typeof fn === "function" ? declarations.get(fn) : undefined;
}

const NOT_FOUND = "Not found (or not yours to change).";

function sessionEnded(reason: "disabled" | "changed" | null): ActionResult {
  const message = reason === "disabled" ? ENDED_SESSION_MESSAGES.disabled : "Your session has ended. Sign in again.";
  return { ok: false, message, at: Date.now() };
}

/**
 * The wrapper's body, with the session given: the tests call it with one of their choosing (a bare
 * actor stands for a complete session whose factor was proven just now).
 */
export async function executeAction<S extends z.ZodType>(
  declaration: ActionDeclaration<S>,
  who: SessionState | Actor | null,
  form?: FormData,
  now = new Date(),
): Promise<ActionResult> {
  const at = Date.now();
  const session: SessionState | null =
    who && "stage" in who
      ? who
      : who
        ? { actor: who, stage: "complete", factorAt: now, holdsFactor: false, sso: false }
        : null;
  if (!session) return sessionEnded(null);
  if (session.stage !== "complete" && !declaration.beforeFactor)
    return { ok: false, message: "Finish signing in (your second factor) first.", at };
  const actor = session.actor;
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
  if (
    session.stage === "complete" &&
    (FRESH_FACTOR_PERMISSIONS.has(declaration.permission) || declaration.stepUp?.(parsed.data) === true) &&
    sessionNeedsStepUp(session, now)
  ) {
    const methods = await factorMethods(actor.id);
    return {
      ok: false,
      message: "Confirm it's you with your second factor to do this.",
      at,
      stepUp: {
        methods: session.sso && !session.holdsFactor ? ["sso"] : methods,
        // The passkey challenge comes with the question, so the dialog needs no other call.
        ...(methods.includes("passkey")
          ? { passkeyOptions: JSON.stringify(await passkeyAuthenticationOptions({ userId: actor.id })) }
          : {}),
      },
    };
  }
  try {
    const answer = await declaration.handler(parsed.data, actor);
    return typeof answer === "string"
      ? { ok: true, message: answer, at: Date.now() }
      : { ok: answer.ok, message: answer.message, at: Date.now(), ...(answer.data ? { data: answer.data } : {}) };
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

/**
 * A form text field as the forms always read it: trimmed, "" when missing. Longer than `max` is
 * refused with a message under the field (the form keeps what was typed), never cut and sent on.
 */
export function text(max = 500) {
  return z.preprocess(
    (value) => (typeof value === "string" ? value.trim() : ""),
    z.string().max(max, { error: (issue) => tooLongMessage(max, String(issue.input ?? "").length) }),
  );
}

/** Taken exactly as typed (passwords): not trimmed or shortened; the service checks it. */
export function verbatim() {
  return z.preprocess((value) => (typeof value === "string" ? value : ""), z.string());
}
