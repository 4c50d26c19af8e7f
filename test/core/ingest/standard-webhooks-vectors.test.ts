// The Standard Webhooks libraries' own test vectors (standard-webhooks/standard-webhooks,
// libraries/javascript/src/webhook.test.ts and libraries/go/webhook_asymmetric_test.go) against our
// verifier and signers: the symmetric `v1` vector, the asymmetric `v1a` one, and their negative
// cases (missing headers, a bad timestamp, bad, partial and decoy signatures, the tolerance).
import { describe, expect, it } from "vitest";
import {
  publicKeyOfSigningKey,
  signWebhook,
  signWebhookAsymmetric,
  verifySignature,
  type SignatureHeaders,
} from "@/lib/core/ingest/verify-signature";
import { secretFingerprint } from "@/lib/core/ingest/secret-fingerprint";

const MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const PAYLOAD = '{"test": 2432232314}';
const TIMESTAMP = 1614265330;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const V1 = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const SIGNING_KEY = "whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=";
const V1A = "v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag==";
const PUBLIC_KEY = publicKeyOfSigningKey(SIGNING_KEY);
const DECOY = "Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=";

const at = (seconds: number) => new Date(seconds * 1000);
const headers = (signature: string | null, overrides: Partial<SignatureHeaders> = {}): SignatureHeaders => ({
  "webhook-id": MSG_ID,
  "webhook-timestamp": String(TIMESTAMP),
  "webhook-signature": signature,
  ...overrides,
});
const check = (h: SignatureHeaders, receivedAt = at(TIMESTAMP), body = PAYLOAD) =>
  verifySignature(body, h, { secrets: [SECRET], publicKeys: [PUBLIC_KEY], toleranceSeconds: 300, receivedAt });

describe("the upstream vectors", () => {
  it("signs the symmetric vector as the libraries do, and accepts it", () => {
    expect(
      signWebhook({ secret: SECRET, webhookId: MSG_ID, body: PAYLOAD, timestamp: at(TIMESTAMP) })["webhook-signature"],
    ).toBe(V1);
    expect(check(headers(V1))).toMatchObject({ verdict: "valid", secretFingerprint: secretFingerprint(SECRET) });
  });

  it("signs the v1a vector as the libraries do, and accepts it against the key's whpk_, recording the key", () => {
    expect(
      signWebhookAsymmetric({ signingKey: SIGNING_KEY, webhookId: MSG_ID, body: PAYLOAD, timestamp: at(TIMESTAMP) }),
    ).toBe(V1A);
    expect(PUBLIC_KEY).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(check(headers(V1A))).toMatchObject({ verdict: "valid", secretFingerprint: secretFingerprint(PUBLIC_KEY) });
  });

  it("accepts either among decoys and unknown versions, and says which credential matched", () => {
    for (const [valid, credential] of [
      [V1, SECRET],
      [V1A, PUBLIC_KEY],
    ] as const) {
      const signature = [`v1,${DECOY}`, `v2,${DECOY}`, valid, `v1a,${DECOY}`, `v1,${DECOY}`].join(" ");
      expect(check(headers(signature))).toMatchObject({
        verdict: "valid",
        secretFingerprint: secretFingerprint(credential),
      });
    }
  });
});

describe("the upstream negative cases", () => {
  it.each([
    ["webhook-id", { "webhook-id": null }],
    ["webhook-timestamp", { "webhook-timestamp": null }],
  ])("a missing %s", (_name, overrides) => {
    expect(check(headers(V1, overrides)).verdict).toBe("missing");
    expect(check(headers(V1A, overrides)).verdict).toBe("missing");
  });

  it("a missing signature", () => {
    expect(check(headers(null)).verdict).toBe("missing");
  });

  it("a timestamp that is not a number", () => {
    expect(check(headers(V1, { "webhook-timestamp": "hello" })).verdict).toBe("invalid");
  });

  it.each([
    ["an invalid v1 signature", "v1,dawfeoifkpqwoekfpqoekf"],
    ["a partial v1 signature", V1.slice(0, 8)],
    ["an empty v1 signature", "v1,"],
    ["an invalid v1a signature", `v1a,${DECOY}`],
    ["an empty v1a signature", "v1a,"],
    ["a v1a signature offered as v1", `v1,${V1A.slice(4)}`],
    ["a v1 signature offered as v1a", `v1a,${V1.slice(3)}`],
    ["only unknown versions", `v2,${DECOY} v1b,${V1A.slice(4)}`],
  ])("%s", (_name, signature) => {
    expect(check(headers(signature))).toMatchObject({ verdict: "invalid", secretFingerprint: null });
  });

  it("the body changed after signing", () => {
    expect(check(headers(V1), at(TIMESTAMP), PAYLOAD + " ").verdict).toBe("invalid");
    expect(check(headers(V1A), at(TIMESTAMP), PAYLOAD + " ").verdict).toBe("invalid");
  });

  it("a v1a signature by a key not configured", () => {
    const other = "whsk_V0VCSE9PS0FTWU1NRVRSSUNURVNUUFJJVkFURUtFWTE=";
    const signature = signWebhookAsymmetric({
      signingKey: other,
      webhookId: MSG_ID,
      body: PAYLOAD,
      timestamp: at(TIMESTAMP),
    });
    expect(check(headers(signature)).verdict).toBe("invalid");
  });

  it("an old and a new timestamp outside the tolerance", () => {
    expect(check(headers(V1), at(TIMESTAMP + 301)).verdict).toBe("expired");
    expect(check(headers(V1A), at(TIMESTAMP - 301)).verdict).toBe("expired");
    expect(check(headers(V1A), at(TIMESTAMP + 300)).verdict).toBe("valid");
  });
});
