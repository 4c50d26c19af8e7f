import "server-only";
// Canary events signed here and posted to our own public endpoint: the duplicate step's fallback
// when the provider cannot send a test event, and the forced failure. Each is a `key.revoked` of
// a key that never existed: applied, it records a tombstone on the canary district and nothing else.
import { randomBytes } from "node:crypto";
import type { DbOrTx } from "../../core/db/client";
import { buildKeyEvent, signDelivery } from "../provider/signed-delivery";
import { CANARY_TENANT_ID } from "../../core/tenancy/canary";

export type CanaryAnswer = { status: number; body: string };

export async function canaryLastSequence(db: DbOrTx): Promise<number | null> {
  const tenant = await db.tenant.findUnique({
    where: { id: CANARY_TENANT_ID },
    select: { lastSeenSequence: true, highWaterMark: true },
  });
  if (!tenant) return null;
  return Number(tenant.lastSeenSequence ?? tenant.highWaterMark);
}

export function canaryEvent(input: { sequence: number; label: string }): {
  eventId: string;
  keyId: string;
  body: string;
} {
  const keyId = `key_canary_${input.label}_${randomBytes(6).toString("hex")}`;
  const event = buildKeyEvent({ type: "key.revoked", tenantId: CANARY_TENANT_ID, keyId, sequence: input.sequence });
  return { eventId: String(event.id), keyId, body: JSON.stringify(event) };
}

export async function postSigned(input: {
  url: string;
  body: string;
  eventId: string;
  secret: string;
  timeoutMs: number;
}): Promise<CanaryAnswer> {
  const signed = signDelivery({ body: input.body, webhookId: input.eventId, secrets: [input.secret] });
  try {
    const response = await fetch(input.url, {
      method: "POST",
      headers: signed.headers,
      body: signed.body,
      signal: AbortSignal.timeout(input.timeoutMs),
    });
    return { status: response.status, body: (await response.text()).slice(0, 300) };
  } catch (error) {
    const name = (error as { name?: string })?.name;
    if (name === "TimeoutError" || name === "AbortError")
      return { status: 0, body: `no answer within ${input.timeoutMs} ms` };
    const cause = (error as { cause?: { code?: string } })?.cause?.code;
    return { status: 0, body: `could not reach ${input.url}${cause ? ` (${cause})` : ""}` };
  }
}
