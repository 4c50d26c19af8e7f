// The provider's REST API on the wire (snake_case JSON), validated where it enters our process.
// The simulator answers with exactly these shapes (it imports the types), so the two cannot drift.
//
//   POST /v1/account/webhooks/register                         {url}            Idempotency-Key → 201 WireHook
//   GET  /v1/account/webhooks/{hookId}                                                          → 200 WireHook
//   POST /v1/account/webhooks/{hookId}/rotate-secret           {secret?, overlap_seconds?}       → 200 WireSecretRotation
//   POST /v1/account/webhooks/{hookId}/test-event              {tenant_id}      Idempotency-Key → 202 WireTestEvent
//   GET  /v1/account/webhooks/deliveries/{hookId}?cursor&limit&status&event_id&since&until      → 200 WireDeliveryPage
//   POST /v1/account/webhooks/deliveries/{hookId}/{deliveryId}/redeliver                         → 202 {accepted: true}
//   POST /v1/account/webhooks/deliveries/{hookId}/redeliver-failed {since, until, dry_run}       → 200 {count}
//   POST /v1/tenants/{tenantId}/keys                           {scopes}         Idempotency-Key → 201 WireKeyResult
//   POST /v1/tenants/{tenantId}/keys/{keyId}/rotate                             Idempotency-Key → 201 WireKeyResult
//   POST /v1/tenants/{tenantId}/keys/{keyId}/revoke                             Idempotency-Key → 200 WireKeyResult
//   GET  /v1/tenants/{tenantId}/keys?cursor&limit   (limit ≤ KEY_PAGE_MAX, ordered by key id) → 200 WireKeyPage
// Errors: {error: {code, message}} with the HTTP status; 429 and 503 carry Retry-After (seconds).
// A hook the provider does not know is a 404 with code HOOK_NOT_FOUND, on every /webhooks/{hookId} route;
// the key calls' refusals are KEY_CALL_REFUSALS.
import { z } from "zod";

const isoDate = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

export const HOOK_NOT_FOUND = "hook_not_found";

/** The refusals of the key calls (their `error.code`): the dashboard explains each in words. */
export const KEY_CALL_REFUSALS = {
  /** Issue while the tenant has an active key (409): one at a time, rotate it instead. */
  activeKeyExists: "active_key_exists",
  /** Rotate a key that is not active (409). */
  keyNotActive: "key_not_active",
  /** Rotate or revoke a key the provider does not know for the tenant (404). */
  keyNotFound: "key_not_found",
} as const;

export const wireHook = z.object({
  hook_id: z.string().min(1),
  url: z.string(),
  created_at: isoDate,
});
export type WireHook = z.input<typeof wireHook>;

export const wireSecretRotation = z.object({
  hook_id: z.string().min(1),
  secret: z.string().min(1),
  previous_secret_valid_until: isoDate.nullable(),
});
export type WireSecretRotation = z.input<typeof wireSecretRotation>;

const wireDeliveryAttempt = z.object({
  id: z.string().min(1),
  event_id: z.string().min(1),
  tenant_id: z.string().min(1),
  attempt: z.number().int().positive(),
  trigger: z.enum(["scheduled", "manual"]),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().nonnegative(),
  response_excerpt: z.string().nullable(),
  error: z.string().nullable(),
  at: isoDate,
  next_retry_at: isoDate.nullable(),
  succeeded: z.boolean(),
});
export type WireDeliveryAttempt = z.input<typeof wireDeliveryAttempt>;

export const wireDeliveryPage = z.object({
  items: z.array(wireDeliveryAttempt),
  next_cursor: z.string().nullable(),
});
export type WireDeliveryPage = z.input<typeof wireDeliveryPage>;

/** A test event the provider emitted and is delivering to that hook only (at least once, as any event). */
export const wireTestEvent = z.object({
  event_id: z.string().min(1),
  tenant_id: z.string().min(1),
  sequence: z.number().int().positive(),
});
export type WireTestEvent = z.input<typeof wireTestEvent>;

export const wireRedeliver = z.object({ accepted: z.literal(true) });
export const wireRedeliverFailed = z.object({ count: z.number().int().nonnegative() });

export const wireKey = z.object({
  id: z.string().min(1),
  tenant_id: z.string().min(1),
  status: z.enum(["active", "rotated", "revoked"]),
  prefix: z.string(),
  scopes: z.array(z.string()),
  created_at: isoDate,
});
/** The largest page of keys the provider hands out at once; a bigger limit is a 400. */
export const KEY_PAGE_MAX = 1000;

export const wireKeyPage = z.object({
  items: z.array(wireKey).max(KEY_PAGE_MAX),
  /** Opaque; null on the last page. */
  next_cursor: z.string().min(1).max(500).nullable(),
});
export type WireKeyPage = z.input<typeof wireKeyPage>;

export const wireKeyResult = z.object({
  key: wireKey,
  /** The new key's secret, shown once (issue and rotate only). */
  secret: z.string().nullable(),
  previous_key_id: z.string().nullable(),
  /** The webhook event this change emitted; null when nothing changed (revoking a revoked key). */
  event_id: z.string().nullable(),
});
export type WireKeyResult = z.input<typeof wireKeyResult>;

export const wireError = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type WireError = z.input<typeof wireError>;
