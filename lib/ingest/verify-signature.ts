// Standard Webhooks verification of the RAW body against every configured secret (several are
// configured while a secret rotates). We verify ourselves rather than through the library's
// verify(): its timestamp tolerance is fixed at 5 minutes, and it does not say WHICH secret
// matched, which the receipt records (by fingerprint) so Settings can tell when an old secret is
// safe to retire. Signing still goes through the library, so the two cannot disagree.
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { secretFingerprint } from "./secret-fingerprint";

export type SignatureVerdict = "valid" | "invalid" | "missing" | "expired";

export type SignatureHeaders = {
  "webhook-id": string | null;
  "webhook-timestamp": string | null;
  "webhook-signature": string | null;
};

export type SignatureCheck = {
  verdict: SignatureVerdict;
  /** Fingerprint of the secret that verified the signature (valid only). */
  secretFingerprint: string | null;
  /** Our receive time minus webhook-timestamp, in ms; null when the header is absent or unreadable. */
  clockSkewMs: number | null;
};

export type VerifyOptions = {
  secrets: readonly string[];
  /** Accepted |receive time − webhook-timestamp|, inclusive (WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS). */
  toleranceSeconds: number;
  receivedAt: Date;
};

const keys = new Map<string, Buffer>();
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
    keys.set(secret, key);
  }
  return key;
}

export function verifySignature(rawBody: string, headers: SignatureHeaders, options: VerifyOptions): SignatureCheck {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatureHeader = headers["webhook-signature"];
  if (!id || !timestamp || !signatureHeader) return { verdict: "missing", secretFingerprint: null, clockSkewMs: null };
  if (!/^\d{1,12}$/.test(timestamp)) return { verdict: "invalid", secretFingerprint: null, clockSkewMs: null };

  const seconds = Number(timestamp);
  const clockSkewMs = Math.max(-2_147_483_648, Math.min(2_147_483_647, options.receivedAt.getTime() - seconds * 1000));
  // The timestamp is checked before the signature, and does not depend on the secret. Whole
  // seconds on both sides, as the header has them: a skew of exactly the tolerance is accepted.
  const skewSeconds = Math.floor(options.receivedAt.getTime() / 1000) - seconds;
  if (Math.abs(skewSeconds) > options.toleranceSeconds)
    return { verdict: "expired", secretFingerprint: null, clockSkewMs };

  const offered = signatureHeader
    .split(" ")
    .filter((part) => part.startsWith("v1,"))
    .map((part) => Buffer.from(part.slice(3), "base64"));
  if (offered.length === 0) return { verdict: "invalid", secretFingerprint: null, clockSkewMs };
  const signedContent = `${id}.${seconds}.${rawBody}`; // as the library signs: the number, not the header's digits
  for (const secret of options.secrets) {
    const expected = createHmac("sha256", keyOf(secret)).update(signedContent).digest();
    if (offered.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))) {
      return { verdict: "valid", secretFingerprint: secretFingerprint(secret), clockSkewMs };
    }
  }
  return { verdict: "invalid", secretFingerprint: null, clockSkewMs };
}

const signers = new Map<string, Webhook>();

/** Signs like the provider does. Used by the event CLI, the simulator and the tests. */
export function signWebhook(options: {
  secret: string;
  webhookId: string;
  body: string;
  timestamp?: Date;
}): Record<keyof SignatureHeaders, string> {
  const timestamp = options.timestamp ?? new Date();
  let signer = signers.get(options.secret);
  if (!signer) {
    signer = new Webhook(options.secret);
    signers.set(options.secret, signer);
  }
  const signature = signer.sign(options.webhookId, timestamp, options.body);
  return {
    "webhook-id": options.webhookId,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": signature,
  };
}
