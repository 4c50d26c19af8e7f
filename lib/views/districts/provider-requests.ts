import "server-only";
// What became of a district's recent requests to the provider (issue, rotate, revoke): on their
// way, answered (and whether the key it made has reached us, active or stale), refused, or given
// up. Read from the outbox row (its `result` holds the provider's answer as facts), the key it
// names and the ledger row that activated it; the district page says it in words, so a request
// that can only fail later is reported where it was asked, for as long as it matters.
import { prisma, type DbOrTx } from "../../core/db/client";

/** How far back the page looks (older answers live in the audit log). */
export const PROVIDER_REQUEST_DAYS = 7;
const SHOWN = 5;

type ProviderRequestKind = "key.issue" | "key.rotate" | "key.revoke";

export type ProviderRequest = {
  id: string;
  kind: ProviderRequestKind;
  /** The outbox row's own state. */
  state: "pending" | "sent" | "failed";
  requestedBy: string | null;
  requestedAt: Date;
  attempts: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  /** The key rotated or revoked (rotate, revoke). */
  keyId: string | null;
  scopes: string[];
  /** The provider's answer: its status and code, its words for a refusal, the key it made. */
  answer: {
    status: number | null;
    code: string | null;
    message: string | null;
    madeKeyId: string | null;
  } | null;
  /** A refusal (4xx) rather than a failure to get any answer. */
  refused: boolean;
  /** The key the provider made (issue, rotate) as we hold it: null until its webhook arrives. */
  madeKey: { status: string; arrivedStale: { sequence: bigint; highWaterMark: bigint } | null } | null;
};

type Row = {
  id: bigint;
  kind: ProviderRequestKind;
  status: "pending" | "sent" | "failed";
  requested_by: string | null;
  created_at: Date;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  payload: { keyId?: unknown; scopes?: unknown } | null;
  result: { status?: unknown; code?: unknown; message?: unknown; key_id?: unknown; refused?: unknown } | null;
  made_status: string | null;
  made_sequence: bigint | null;
  made_outcome: string | null;
};

/** The district's newest key calls; the caller has authorized the actor for this district. */
export async function listProviderRequests(
  options: { tenantId: string; highWaterMark: bigint; now?: Date },
  db: DbOrTx = prisma,
): Promise<ProviderRequest[]> {
  const since = new Date((options.now ?? new Date()).getTime() - PROVIDER_REQUEST_DAYS * 86_400_000);
  const rows = await db.$queryRaw<Row[]>`
    SELECT o.id, o.kind, o.status, COALESCE(u.email, o.requested_by) AS requested_by, o.created_at, o.attempts, o.next_attempt_at, o.last_error,
           o.payload, o.result, k.status AS made_status, k.activated_seq AS made_sequence, e.outcome AS made_outcome
    FROM outbox o
    LEFT JOIN users u ON u.id = o.requested_by_id
    LEFT JOIN api_keys k ON o.kind IN ('key.issue', 'key.rotate')
      AND k.tenant_id = o.tenant_id AND k.id = o.result->>'key_id'
    LEFT JOIN processed_events e ON e.tenant_id = o.tenant_id AND e.event_id = k.last_event_id
      AND e.key_id = k.id AND e.type IN ('key.created', 'key.rotated')
    WHERE o.tenant_id = ${options.tenantId} AND o.kind IN ('key.issue', 'key.rotate', 'key.revoke')
      AND o.created_at >= ${since}::timestamptz
    ORDER BY o.created_at DESC, o.id DESC
    LIMIT ${SHOWN}`;
  return rows.map((row) => {
    const result = row.result;
    const code = typeof result?.code === "string" ? result.code : null;
    const status = typeof result?.status === "number" ? result.status : null;
    return {
      id: row.id.toString(),
      kind: row.kind,
      state: row.status,
      requestedBy: row.requested_by,
      requestedAt: row.created_at,
      attempts: row.attempts,
      nextAttemptAt: row.status === "pending" ? row.next_attempt_at : null,
      lastError: row.last_error,
      keyId: typeof row.payload?.keyId === "string" ? row.payload.keyId : null,
      scopes: Array.isArray(row.payload?.scopes) ? row.payload.scopes.filter((s) => typeof s === "string") : [],
      answer: result
        ? {
            status,
            code,
            message: typeof result.message === "string" ? result.message : null,
            madeKeyId: typeof result.key_id === "string" ? result.key_id : null,
          }
        : null,
      refused: row.status === "failed" && result?.refused === true,
      madeKey: row.made_status
        ? {
            status: row.made_status,
            // Recorded superseded by its own activation because that activation was stale: the
            // provider numbered it at or below what this district had already activated.
            arrivedStale:
              row.made_outcome === "stale" && row.made_sequence !== null
                ? { sequence: row.made_sequence, highWaterMark: options.highWaterMark }
                : null,
          }
        : null,
    };
  });
}
