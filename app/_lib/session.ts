import "server-only";
// Who is asking, checked at the top of every page, action and route (never only in proxy.ts).
// The session cookie names the user and its session version; the user row is re-read each time
// and another version refused, so sign-out, disable or a role change ends the session at once.
import { getServerSession } from "next-auth";
import { notFound, redirect } from "next/navigation";
import { authOptions } from "@/auth";
import type { Actor } from "@/lib/core/auth/actor";
import { loadSession, type SessionClaims, type SessionState } from "@/lib/core/auth/load-session";
import type { SignInStage } from "@/lib/core/auth/mfa/mfa-policy";
import { endedSessionReason } from "@/lib/core/auth/load-actor";
import { can, type Permission } from "@/lib/core/auth/permissions";
import { AppError } from "@/lib/core/errors";
import { toResponse } from "@/http/to-response";

/** The session of this request at whatever stage its sign-in is (the second-factor pages need the pending ones). */
export async function currentSession(): Promise<SessionState | null> {
  return sessionOf(await getServerSession(authOptions()));
}

/**
 * Who is asking, once the sign-in is complete: a session still waiting for its second factor is
 * nobody to every page, action and route, so none of them can forget to ask for it.
 */
export async function currentActor(): Promise<Actor | null> {
  return completeActor(await currentSession());
}

/**
 * Why the session this browser holds no longer signs anyone in (the account was disabled, or it
 * changed): said to the one who held it, at the moment it ends.
 */
export async function endedSession(): Promise<"disabled" | "changed" | null> {
  const user = (await getServerSession(authOptions()))?.user as
    { id?: string | null; sessionVersion?: number | null } | undefined;
  return endedSessionReason(user?.id, user?.sessionVersion);
}

/** The user a decoded session names, if that session is still current and complete (tests call it directly). */
export async function actorOfSession(session: { user?: unknown } | null | undefined): Promise<Actor | null> {
  return completeActor(await sessionOf(session));
}

function completeActor(session: SessionState | null): Actor | null {
  return session?.stage === "complete" ? session.actor : null;
}

function sessionOf(session: { user?: unknown } | null | undefined): Promise<SessionState | null> {
  const user = session?.user as
    { id?: string | null; sessionVersion?: number | null; factorAt?: number | null; sso?: boolean } | undefined;
  const claims: SessionClaims = {
    userId: user?.id,
    sessionVersion: user?.sessionVersion,
    factorAt: user?.factorAt ?? null,
    sso: user?.sso === true,
  };
  return loadSession(claims);
}

/** Where a session waiting at `stage` goes next. */
export function stagePath(stage: Exclude<SignInStage, "complete">, callbackPath?: string): string {
  const base = stage === "factor" ? "/signin/factor" : "/signin/enrol";
  return callbackPath ? `${base}?${new URLSearchParams({ callbackUrl: callbackPath })}` : base;
}

/** For pages: anonymous → sign-in, a pending second factor → its step; a role without the permission → 404. */
export async function requirePageActor(permission: Permission): Promise<Actor> {
  const session = await currentSession();
  if (!session) redirect("/signin");
  if (session.stage !== "complete") redirect(stagePath(session.stage));
  if (!can(session.actor, permission)) notFound();
  return session.actor;
}

/** For route handlers (CSV exports): JSON 401 when anonymous, 404 when the role may not. */
export async function requireRouteActor(permission: Permission): Promise<Actor | Response> {
  const actor = await currentActor();
  if (!actor) return toResponse(new AppError("unauthorized", "sign in first"));
  if (!can(actor, permission)) return toResponse(new AppError("not_found", "not found"));
  return actor;
}
