// What each role may do (docs/design.md, "Roles"). The one table every page, action and route
// consults; the district scope on top of it is lib/core/tenancy/district-scope.ts, in each query.
import { AppError } from "../errors";
import type { Actor, Role } from "./actor";

const everyone: readonly Role[] = ["district_admin", "support", "platform_admin"];
const staff: readonly Role[] = ["support", "platform_admin"];
const platformAdmin: readonly Role[] = ["platform_admin"];

export const PERMISSIONS = {
  "overview.view": everyone,
  "districts.view": everyone,
  "ledger.view": everyone,
  "ledger.export": everyone,
  // Support staff are read + replay: they cannot change a credential.
  "key.revoke": ["district_admin", "platform_admin"],
  "key.issue": platformAdmin,
  "key.rotate": platformAdmin,
  "deliveries.view": staff,
  "delivery.replay": staff,
  "quarantine.view": staff,
  "quarantine.resolve": staff,
  "retention.view": staff,
  "retention.edit": platformAdmin,
  // The retry-readiness check: runs real deliveries on the canary district only.
  "readiness.view": staff,
  "readiness.run": staff,
  // The alert center: everyone sees their scope's alerts and may acknowledge or resolve
  // them; a drift resolve that changes a credential also needs key.revoke (act-on-alert.ts).
  "alerts.view": everyone,
  "alerts.act": everyone,
  "drift.run": platformAdmin,
  "audit.view": staff,
  "audit.export": staff,
  // Managing accounts can grant any role, so it is as powerful as the platform admin itself.
  "users.view": platformAdmin,
  "users.manage": platformAdmin,
  // Webhook registration and the signing-secret inventory (fingerprints only, never key material).
  "settings.view": platformAdmin,
  "settings.manage": platformAdmin,
  // One's own second factors: see them (and ask for a passkey challenge); add, remove, new
  // recovery codes (lib/core/auth/mfa).
  "account.view": everyone,
  "account.factors": everyone,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

/**
 * The dangerous ones: an action with one of these asks for a second factor again when the
 * session's last one is older than MFA_STEP_UP_MINUTES (app/_lib/run-action.ts enforces it for
 * every action declared with them). Changing a credential, the webhook and alert channel
 * settings, accounts (factor resets included), retention, and one's own factors.
 */
export const FRESH_FACTOR_PERMISSIONS: ReadonlySet<Permission> = new Set<Permission>([
  "key.revoke",
  "key.issue",
  "key.rotate",
  "settings.manage",
  "users.manage",
  "retention.edit",
  "account.factors",
]);

export function can(actor: Actor, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(actor.role);
}

/**
 * Throws not_found rather than forbidden: a page or record the role may not use looks the same
 * as one that does not exist, so the dashboard never confirms what lies behind a denial.
 */
export function authorize(actor: Actor, permission: Permission): void {
  if (!can(actor, permission)) throw new AppError("not_found", "not found");
}
