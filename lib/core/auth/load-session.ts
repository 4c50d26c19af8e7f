import "server-only";
// A session as the app sees it on each request: the user (re-read, as loadActor does), and where
// the sign-in stands (mfa-policy.ts): complete, or waiting for a second factor to be proven or
// enrolled. Only a complete session is an actor to the pages, actions and routes.
import { prisma, type DbOrTx } from "../db/client";
import { env } from "../config/env";
import type { Actor } from "./actor";
import { loadActor } from "./load-actor";
import { holdsFactor } from "./mfa/factor-facts";
import { needsStepUp, signInStage, type SignInStage } from "./mfa/mfa-policy";

export type SessionState = {
  actor: Actor;
  stage: SignInStage;
  /** When this session last proved a factor (null: never). */
  factorAt: Date | null;
  holdsFactor: boolean;
  /** Signed in through single sign-on. */
  sso: boolean;
};

export type SessionClaims = {
  userId: string | null | undefined;
  sessionVersion: number | null | undefined;
  factorAt?: number | null;
  sso?: boolean;
};

export async function loadSession(claims: SessionClaims, db: DbOrTx = prisma): Promise<SessionState | null> {
  const actor = await loadActor(claims.userId, db, { sessionVersion: claims.sessionVersion });
  if (!actor) return null;
  const factorAt = typeof claims.factorAt === "number" ? new Date(claims.factorAt) : null;
  const held = await holdsFactor(actor.id, db);
  const stage = signInStage({ role: actor.role, holdsFactor: held, factorAt }, env().MFA_REQUIRED_ROLES);
  return { actor, stage, factorAt, holdsFactor: held, sso: claims.sso === true };
}

/** Whether a dangerous action must ask for a factor again in this session now. */
export function sessionNeedsStepUp(session: SessionState, now: Date): boolean {
  return needsStepUp(
    { role: session.actor.role, holdsFactor: session.holdsFactor, factorAt: session.factorAt },
    now,
    env().MFA_STEP_UP_MINUTES,
  );
}
