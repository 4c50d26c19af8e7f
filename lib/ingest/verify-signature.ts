// Standard Webhooks verification of the RAW body against every configured secret (several are
// configured while a secret rotates). The library also enforces the ±5 minute timestamp window.
import { Webhook, WebhookVerificationError } from "standardwebhooks";

export type SignatureVerdict = "valid" | "invalid" | "missing" | "expired";

export type SignatureHeaders = {
  "webhook-id": string | null;
  "webhook-timestamp": string | null;
  "webhook-signature": string | null;
};

const verifiers = new Map<string, Webhook>();
function verifierFor(secret: string): Webhook {
  let verifier = verifiers.get(secret);
  if (!verifier) {
    verifier = new Webhook(secret);
    verifiers.set(secret, verifier);
  }
  return verifier;
}

export function verifySignature(rawBody: string, headers: SignatureHeaders, secrets: readonly string[]): SignatureVerdict {
  if (!headers["webhook-id"] || !headers["webhook-timestamp"] || !headers["webhook-signature"]) return "missing";
  const plainHeaders = headers as Record<string, string>;
  let verdict: SignatureVerdict = "invalid";
  for (const secret of secrets) {
    try {
      verifierFor(secret).verify(rawBody, plainHeaders, { jsonParse: false });
      return "valid";
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      // The timestamp is checked before the signature, and does not depend on the secret.
      if (/timestamp too (old|new)/.test(error.message)) return "expired";
      verdict = "invalid";
    }
  }
  return verdict;
}

/** Signs like the provider does. Used by the event CLI, the simulator and the tests. */
export function signWebhook(options: { secret: string; webhookId: string; body: string; timestamp?: Date }): Record<keyof SignatureHeaders, string> {
  const timestamp = options.timestamp ?? new Date();
  const signature = verifierFor(options.secret).sign(options.webhookId, timestamp, options.body);
  return {
    "webhook-id": options.webhookId,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": signature,
  };
}
