// The event envelope of docs/design.md, "The event contract", validated at the boundary.
import { z } from "zod";
import { EVENT_TYPES } from "../vocabulary";

const KNOWN_EVENT_TYPES = EVENT_TYPES;
type KnownEventType = (typeof KNOWN_EVENT_TYPES)[number];

const id = (what: string) =>
  z
    .string({ error: `${what} is required` })
    .min(1, `${what} is required`)
    .max(200, `${what} is too long`);

const envelope = z.object({
  id: id("id"),
  type: id("type"),
  tenant_id: id("tenant_id"),
  occurred_at: z.iso.datetime({ offset: true, error: "occurred_at must be an ISO 8601 timestamp" }).optional(),
});

const keyDataFields = {
  prefix: z.string().max(64).optional(),
  scopes: z.array(z.string().max(200)).max(100).optional(),
};
const keyData = z.object(keyDataFields).optional();

const sequence = z
  .number({ error: "sequence is required and must be a number" })
  .int("sequence must be a whole number")
  .positive("sequence must be positive")
  .max(Number.MAX_SAFE_INTEGER);

const keyEvent = envelope.extend({
  type: z.enum(KNOWN_EVENT_TYPES),
  key_id: id("key_id"),
  sequence,
  data: keyData,
});

const rotatedEvent = keyEvent.extend({ type: z.literal("key.rotated"), previous_key_id: id("previous_key_id") });

/**
 * The contract's fields, each with its schema: a payload is stored and shown with these only
 * (lib/core/ingest/redact-payload.ts); anything else a sender adds is replaced by a size marker.
 * `data` is listed apart because its own fields are allow-listed in turn.
 */
export const CONTRACT_FIELDS: Readonly<Record<string, z.ZodType>> = {
  ...envelope.shape,
  key_id: id("key_id"),
  previous_key_id: id("previous_key_id"),
  sequence,
};
export const CONTRACT_DATA_FIELDS: Readonly<Record<string, z.ZodType>> = keyDataFields;

export type KeyEvent = {
  id: string;
  type: KnownEventType;
  tenantId: string;
  keyId: string;
  previousKeyId: string | null;
  sequence: number;
  occurredAt: Date | null;
  prefix: string | null;
  scopes: string[] | null;
};
export type UnknownTypeEvent = {
  id: string;
  type: string;
  tenantId: string;
  sequence: number | null;
  occurredAt: Date | null;
};

type ParsedEvent = { kind: "key"; event: KeyEvent } | { kind: "unknown-type"; event: UnknownTypeEvent };
type ParseResult = { ok: true; parsed: ParsedEvent } | { ok: false; error: string };

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const at = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${at}${issue.message}`;
}

/** Validates a decoded JSON body. Unknown types only need what the claim needs. */
export function parseEvent(body: unknown): ParseResult {
  const base = envelope.safeParse(body);
  if (!base.success) return { ok: false, error: firstIssue(base.error) };
  const occurredAt = base.data.occurred_at ? new Date(base.data.occurred_at) : null;

  if (!(KNOWN_EVENT_TYPES as readonly string[]).includes(base.data.type)) {
    const raw = body as { sequence?: unknown };
    const seq = typeof raw.sequence === "number" && Number.isSafeInteger(raw.sequence) ? raw.sequence : null;
    return {
      ok: true,
      parsed: {
        kind: "unknown-type",
        event: { id: base.data.id, type: base.data.type, tenantId: base.data.tenant_id, sequence: seq, occurredAt },
      },
    };
  }

  const schema = base.data.type === "key.rotated" ? rotatedEvent : keyEvent;
  const result = schema.safeParse(body);
  if (!result.success) return { ok: false, error: firstIssue(result.error) };
  const e = result.data;
  return {
    ok: true,
    parsed: {
      kind: "key",
      event: {
        id: e.id,
        type: e.type,
        tenantId: e.tenant_id,
        keyId: e.key_id,
        previousKeyId: "previous_key_id" in e ? (e.previous_key_id as string) : null,
        sequence: e.sequence,
        occurredAt,
        prefix: e.data?.prefix ?? null,
        scopes: e.data?.scopes ?? null,
      },
    },
  };
}
