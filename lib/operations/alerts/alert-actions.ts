// What an actor may do with an alert in its state: the detail page offers these, and acting on an
// alert refuses anything else.
import type { Actor } from "../../core/auth/actor";
import { can } from "../../core/auth/permissions";
import { isDriftKind, type AlertResolution } from "./alert-kinds";
import { OUTBOX_FAILED_KIND } from "./failed-outbox";

/** Who may send a failed provider call again: whoever may make that call. */
const SEND_AGAIN_PERMISSION = {
  "key.revoke": "key.revoke",
  "key.rotate": "key.rotate",
  "key.issue": "key.issue",
} as const;

export type AlertActions = { acknowledge: boolean; resolutions: AlertResolution[] };

export function availableActions(
  actor: Actor,
  kind: string,
  state: string,
  details: Record<string, unknown>,
): AlertActions {
  if (state === "resolved" || !can(actor, "alerts.act")) return { acknowledge: false, resolutions: [] };
  const resolutions: AlertResolution[] = [];
  if (isDriftKind(kind)) {
    // Changing a credential (at the provider, or here) needs the right to revoke keys.
    if (can(actor, "key.revoke")) {
      if (kind === "drift_provider_active") resolutions.push("revoke_requested");
      if (kind === "drift_local_active" && details.key_id) resolutions.push("recorded_provider_state");
    }
    resolutions.push("explained");
  } else {
    const command = details.command as keyof typeof SEND_AGAIN_PERMISSION;
    if (kind === OUTBOX_FAILED_KIND && Object.hasOwn(SEND_AGAIN_PERMISSION, command))
      if (can(actor, SEND_AGAIN_PERMISSION[command])) resolutions.push("resent");
    resolutions.push("resolved", "explained");
  }
  return { acknowledge: state === "open", resolutions };
}
