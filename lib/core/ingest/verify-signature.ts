// Standard Webhooks verification of the RAW body against every configured credential: the `v1`
// HMAC secrets (WEBHOOK_SECRETS; several while one rotates) and the `v1a` Ed25519 public keys
// (WEBHOOK_PUBLIC_KEYS, decision 0034). The header may carry several signatures, of any version;
// one valid signature from any configured credential accepts the delivery, and unknown versions are
// skipped. We verify ourselves rather than through the library's verify(): its timestamp tolerance
// is fixed at 5 minutes, it knows no `v1a`, and it does not say WHICH credential matched, which the
// receipt records (by fingerprint) so Settings can tell when an old one is safe to retire. `v1`
// signing still goes through the library, so the two cannot disagree.
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from "node:crypto";
import { Webhook } from "standardwebhooks";
import { secretFingerprint } from "./secret-fingerprint";

export type SignatureVerdict = "valid" | "invalid" | "missing" | "expired";

export type SignatureHeaders = {
  "webhook-id": string | null;
  "webhook-timestamp": string | null;
  "webhook-signature": string | null;
};

type SignatureCheck = {
  verdict: SignatureVerdict;
  /** Fingerprint of the secret or public key that verified the signature (valid only). */
  secretFingerprint: string | null;
  /** Our receive time minus webhook-timestamp, in ms; null when the header is absent or unreadable. */
  clockSkewMs: number | null;
};

type VerifyOptions = {
  secrets: readonly string[];
  /** whpk_… Ed25519 public keys, for `v1a` signatures. */
  publicKeys?: readonly string[];
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

  const offered = signatureHeader.split(" ").map((part) => {
    const comma = part.indexOf(",");
    return { version: part.slice(0, comma), signature: Buffer.from(part.slice(comma + 1), "base64") };
  });
  const symmetric = offered.filter((o) => o.version === "v1").map((o) => o.signature);
  const asymmetric = offered.filter((o) => o.version === "v1a" && o.signature.length === 64).map((o) => o.signature);
  if (symmetric.length === 0 && asymmetric.length === 0)
    return { verdict: "invalid", secretFingerprint: null, clockSkewMs };
  const signedContent = `${id}.${seconds}.${rawBody}`; // as the library signs: the number, not the header's digits
  if (symmetric.length > 0) {
    for (const secret of options.secrets) {
      const expected = createHmac("sha256", keyOf(secret)).update(signedContent).digest();
      if (symmetric.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))) {
        return { verdict: "valid", secretFingerprint: secretFingerprint(secret), clockSkewMs };
      }
    }
  }
  if (asymmetric.length > 0) {
    const content = Buffer.from(signedContent, "utf8");
    for (const publicKey of options.publicKeys ?? []) {
      const key = publicKeyOf(publicKey);
      if (asymmetric.some((candidate) => verify(null, content, key, candidate)))
        return { verdict: "valid", secretFingerprint: secretFingerprint(publicKey), clockSkewMs };
    }
  }
  return { verdict: "invalid", secretFingerprint: null, clockSkewMs };
}

// Raw Ed25519 keys as node:crypto takes them: DER with the fixed RFC 8410 prefixes.
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const publicKeys = new Map<string, KeyObject>();

function publicKeyOf(whpk: string): KeyObject {
  let key = publicKeys.get(whpk);
  if (!key) {
    const raw = Buffer.from(whpk.replace(/^whpk_/, ""), "base64");
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
    publicKeys.set(whpk, key);
  }
  return key;
}

/** The whpk_ public key of a whsk_ private key (its 32-byte seed, base64), as the provider publishes it. */
export function publicKeyOfSigningKey(whsk: string): string {
  const der = createPublicKey(privateKeyOf(whsk)).export({ format: "der", type: "spki" });
  return `whpk_${der.subarray(der.length - 32).toString("base64")}`;
}

function privateKeyOf(whsk: string): KeyObject {
  const seed = Buffer.from(whsk.replace(/^whsk_/, ""), "base64");
  if (seed.length !== 32) throw new Error("a whsk_ key is the base64 of a 32-byte Ed25519 seed");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
}

/** A `v1a` signature (Ed25519 over id.timestamp.body), as Standard Webhooks' asymmetric signers write it. */
export function signWebhookAsymmetric(options: {
  signingKey: string;
  webhookId: string;
  body: string;
  timestamp: Date;
}): string {
  const content = `${options.webhookId}.${Math.floor(options.timestamp.getTime() / 1000)}.${options.body}`;
  return `v1a,${sign(null, Buffer.from(content, "utf8"), privateKeyOf(options.signingKey)).toString("base64")}`;
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
