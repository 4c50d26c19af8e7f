// Who must prove a second factor, and when again (docs/security.md, "Second factor"). Pure: the
// session loader, the action wrapper and the sign-in provider pass in what they know.
import type { Role } from "../../vocabulary";

/** Where a signed-in session stands: `factor` (prove one you hold), `enrol` (your role must have one), or done. */
export type SignInStage = "complete" | "factor" | "enrol";

type FactorFacts = {
  role: Role;
  /** The user holds at least one confirmed factor. */
  holdsFactor: boolean;
  /** When this session last proved a factor (ours, or the identity provider's MFA), if ever. */
  factorAt: Date | null;
};

export function signInStage(facts: FactorFacts, requiredRoles: readonly Role[]): SignInStage {
  if (facts.factorAt) return "complete";
  // Whoever holds a factor is asked for it, whatever the policy: a district admin who enrolled on
  // their own is protected too.
  if (facts.holdsFactor) return "factor";
  return requiredRoles.includes(facts.role) ? "enrol" : "complete";
}

/** A dangerous action asks for a factor again once the last one is older than the window. */
export function needsStepUp(facts: FactorFacts, now: Date, stepUpMinutes: number): boolean {
  // Nobody asked this account for a factor and it holds none: there is nothing to ask for.
  if (!facts.holdsFactor && !facts.factorAt) return false;
  return !facts.factorAt || now.getTime() - facts.factorAt.getTime() > stepUpMinutes * 60_000;
}

/** Whether the user must hold a factor before they may do anything (their role is listed). */
export function factorRequired(role: Role, requiredRoles: readonly Role[]): boolean {
  return requiredRoles.includes(role);
}
