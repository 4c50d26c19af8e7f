// An audit entry as the audit_log row stores it, with its content hash: what recordAudit writes,
// and what the retention purge writes over its own connection for the entry that records a purge.
import { contentHash, storedDetails, type AuditContent } from "./audit-hash";

export type AuditRowInput = {
  actor: { id: string | null; label: string };
  action: string;
  tenantId?: string | null;
  target?: string | null;
  outcome: string;
  details?: Record<string, unknown>;
};

export function auditRowOf(entry: AuditRowInput): AuditContent & { contentHash: Uint8Array<ArrayBuffer> } {
  const content: AuditContent = {
    actor_id: entry.actor.id,
    actor: entry.actor.label,
    action: entry.action,
    tenant_id: entry.tenantId ?? null,
    target: entry.target ?? null,
    outcome: entry.outcome,
    details: storedDetails(entry.details),
  };
  return { ...content, contentHash: new Uint8Array(Buffer.from(contentHash(content), "hex")) };
}
