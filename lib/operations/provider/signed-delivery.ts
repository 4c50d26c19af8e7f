// How the provider builds and signs a key-lifecycle delivery. One implementation shared by the
// event CLI, the provider simulator and the tests, so they all sign exactly alike.
import { randomBytes } from "node:crypto";
import { signWebhook, signWebhookAsymmetric } from "../../core/ingest/verify-signature";

export type KeyEventInput = {
  type: "key.created" | "key.rotated" | "key.revoked" | (string & {});
  tenantId: string;
  keyId: string;
  previousKeyId?: string;
  sequence: number;
  id?: string;
  occurredAt?: Date;
  prefix?: string;
  scopes?: string[];
};

function newEventId(): string {
  return `evt_${randomBytes(12).toString("hex")}`;
}

export function buildKeyEvent(input: KeyEventInput): Record<string, unknown> {
  const event: Record<string, unknown> = {
    id: input.id ?? newEventId(),
    type: input.type,
    tenant_id: input.tenantId,
    key_id: input.keyId,
    sequence: input.sequence,
    occurred_at: (input.occurredAt ?? new Date()).toISOString(),
  };
  if (input.previousKeyId) event.previous_key_id = input.previousKeyId;
  if (input.type !== "key.revoked") {
    event.data = {
      prefix: input.prefix ?? `ik_live_${input.keyId.slice(-4)}`,
      scopes: input.scopes ?? ["rosters:read"],
    };
  }
  return event;
}

type SignedDelivery = { body: string; headers: Record<string, string> };

/**
 * Signs a body with one or more secrets (several during a secret rotation, space-separated), and
 * with `v1a` Ed25519 signatures for each whsk_ signing key given.
 */
export function signDelivery(options: {
  body: string;
  webhookId: string;
  secrets: readonly string[];
  signingKeys?: readonly string[];
  timestamp?: Date;
}): SignedDelivery {
  // One timestamp for the header and every signature: read twice, a second boundary in between
  // would sign one time and announce another (an intermittent 401).
  const timestamp = options.timestamp ?? new Date();
  const [first, ...others] = options.secrets.map((secret) =>
    signWebhook({ secret, webhookId: options.webhookId, body: options.body, timestamp }),
  );
  const signatures = [first!, ...others].map((headers) => headers["webhook-signature"]);
  for (const signingKey of options.signingKeys ?? [])
    signatures.push(signWebhookAsymmetric({ signingKey, webhookId: options.webhookId, body: options.body, timestamp }));
  return {
    body: options.body,
    headers: { "content-type": "application/json", ...first!, "webhook-signature": signatures.join(" ") },
  };
}
