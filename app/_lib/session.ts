import "server-only";
// Who is asking, checked at the top of every page, action and route (never only in proxy.ts).
// The session cookie names the user and its session version; the user row is re-read each time
// and another version refused, so sign-out, disable or a role change ends the session at once.
import { getServerSession } from "next-auth";
import { notFound, redirect } from "next/navigation";
import { authOptions } from "@/auth";
import type { Actor } from "@/lib/auth/actor";
import { loadActor } from "@/lib/auth/load-actor";
import { can, type Permission } from "@/lib/auth/permissions";
import { AppError } from "@/lib/errors";
import { toResponse } from "@/lib/http/to-response";

export async function currentActor(): Promise<Actor | null> {
  return actorOfSession(await getServerSession(authOptions()));
}

/** The user a decoded session names, if that session is still current (tests call it directly). */
export function actorOfSession(session: { user?: unknown } | null | undefined): Promise<Actor | null> {
  const user = session?.user as { id?: string | null; sessionVersion?: number | null } | undefined;
  return loadActor(user?.id, undefined, { sessionVersion: user?.sessionVersion });
}

/** For pages: anonymous → sign-in; a role without the permission → 404 (like a missing page). */
export async function requirePageActor(permission: Permission): Promise<Actor> {
  const actor = await currentActor();
  if (!actor) redirect("/signin");
  if (!can(actor, permission)) notFound();
  return actor;
}

/** For route handlers (CSV exports): JSON 401 when anonymous, 404 when the role may not. */
export async function requireRouteActor(permission: Permission): Promise<Actor | Response> {
  const actor = await currentActor();
  if (!actor) return toResponse(new AppError("unauthorized", "sign in first"));
  if (!can(actor, permission)) return toResponse(new AppError("not_found", "not found"));
  return actor;
}
