// Signature telemetry: which configured secret verified each delivery (by fingerprint),
// the clock skew, "safe to retire" on a controlled clock, and the timestamp tolerance setting.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { parseEnv, resetEnvForTests } from "@/lib/core/config/env";
import { secretFingerprint } from "@/lib/core/ingest/secret-fingerprint";
import { publicKeyOfSigningKey, verifySignature } from "@/lib/core/ingest/verify-signature";
import { signDelivery } from "@/lib/operations/provider/signed-delivery";
import { getSignatureTelemetry } from "@/lib/views/settings/secret-telemetry";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";

const OLD = "whsec_b2xkLXNlY3JldC1vZi10aGUtcm90YXRpb24tdGVzdA==";
const NEW = "whsec_bmV3LXNlY3JldC1vZi10aGUtcm90YXRpb24tdGVzdA==";
const HORIZON_HOURS = 28;

beforeEach(async () => {
  await resetDatabase();
  process.env.WEBHOOK_SECRETS = `${OLD} ${NEW}`;
  resetEnvForTests();
});
afterEach(() => {
  delete process.env.WEBHOOK_SECRETS;
  delete process.env.WEBHOOK_PUBLIC_KEYS;
  delete process.env.WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS;
  resetEnvForTests();
});

const T = "district-rotation";
let sequence = 0;
const event = () => keyEvent({ type: "key.revoked", tenantId: T, keyId: `key_${++sequence}`, sequence });

async function receiptOf(eventId: unknown) {
  return prisma.receipt.findFirstOrThrow({ where: { eventId: String(eventId) }, orderBy: { id: "desc" } });
}

describe("which secret verified a delivery", () => {
  it("during a rotation, deliveries signed with the old secret are counted against its fingerprint", async () => {
    const signedOld = event();
    const signedNew = event();
    expect((await deliver(signedOld, { secrets: [OLD] })).status).toBe(200);
    expect((await deliver(signedNew, { secrets: [NEW] })).status).toBe(200);
    expect((await receiptOf(signedOld.id)).secretFingerprint).toBe(secretFingerprint(OLD));
    expect((await receiptOf(signedNew.id)).secretFingerprint).toBe(secretFingerprint(NEW));
    // Never the secret itself, nor a prefix of it.
    expect(secretFingerprint(OLD)).toMatch(/^[0-9a-f]{8}$/);
    expect(OLD.includes(secretFingerprint(OLD))).toBe(false);

    const telemetry = await getSignatureTelemetry({
      secrets: [OLD, NEW],
      toleranceSeconds: 300,
      retryHorizonHours: HORIZON_HOURS,
    });
    expect(telemetry.secrets.map((s) => [s.fingerprint, s.verified24h, s.verified7d])).toEqual([
      [secretFingerprint(OLD), 1, 1],
      [secretFingerprint(NEW), 1, 1],
    ]);
  });

  it("a v1a signature verified by a WEBHOOK_PUBLIC_KEYS key is counted against that key, and a v1-only delivery still passes", async () => {
    const signingKey = "whsk_a2V5aG9vay10ZXN0LWVkMjU1MTktc2lnbmluZy1rZXk=";
    const publicKey = publicKeyOfSigningKey(signingKey);
    process.env.WEBHOOK_SECRETS = NEW;
    process.env.WEBHOOK_PUBLIC_KEYS = publicKey;
    resetEnvForTests();
    const asymmetric = event();
    const unknownKey = event();
    const both = event();
    // Signed with a secret we do not hold and the key we do: the v1a signature is the one that matches.
    expect((await deliver(asymmetric, { secrets: [OLD], signingKeys: [signingKey] })).status).toBe(200);
    expect((await receiptOf(asymmetric.id)).secretFingerprint).toBe(secretFingerprint(publicKey));
    expect(
      (
        await deliver(unknownKey, {
          secrets: [OLD],
          signingKeys: ["whsk_b3RoZXIta2V5LW5vdC1jb25maWd1cmVkLWFueXdociE="],
        })
      ).status,
    ).toBe(401);
    expect((await deliver(both, { secrets: [NEW], signingKeys: [signingKey] })).status).toBe(200);
    const telemetry = await getSignatureTelemetry({
      secrets: [NEW, publicKey],
      toleranceSeconds: 300,
      retryHorizonHours: HORIZON_HOURS,
    });
    expect(telemetry.secrets.map((s) => [s.version, s.fingerprint, s.verified24h])).toEqual([
      ["v1", secretFingerprint(NEW), 1],
      ["v1a", secretFingerprint(publicKey), 1],
    ]);
  });

  it('"safe to retire" exactly when the old secret has been silent longer than the retry horizon', async () => {
    const first = event();
    await deliver(first, { secrets: [OLD] });
    const lastOld = (await receiptOf(first.id)).receivedAt;
    const second = event();
    await deliver(second, { secrets: [NEW] });

    const at = (ms: number) =>
      getSignatureTelemetry({
        secrets: [OLD, NEW],
        toleranceSeconds: 300,
        retryHorizonHours: HORIZON_HOURS,
        now: new Date(lastOld.getTime() + ms),
      });
    const horizonMs = HORIZON_HOURS * 3_600_000;
    const oldAt = async (ms: number) => (await at(ms)).secrets[0]!;
    const newAt = async (ms: number) => (await at(ms)).secrets[1]!;

    expect((await oldAt(horizonMs)).safeToRetire).toBe(false);
    expect((await oldAt(horizonMs + 1)).safeToRetire).toBe(true);
    expect((await oldAt(horizonMs + 1)).lastVerifiedAt).toEqual(lastOld);
    // Past a week the counts are zero, the last one is still known.
    const later = await oldAt(8 * 86_400_000);
    expect([later.verified24h, later.verified7d, later.safeToRetire]).toEqual([0, 0, true]);
    expect(later.lastVerifiedAt).toEqual(lastOld);
    // The secret that took over is never "safe to retire".
    expect((await newAt(8 * 86_400_000)).safeToRetire).toBe(false);
  });

  it("a secret that never verified anything is not retirable (it may be the new one, not switched to yet)", async () => {
    await deliver(event(), { secrets: [OLD] });
    const telemetry = await getSignatureTelemetry({
      secrets: [OLD, NEW],
      toleranceSeconds: 300,
      retryHorizonHours: HORIZON_HOURS,
      now: new Date(Date.now() + 30 * 86_400_000),
    });
    expect(telemetry.secrets.map((s) => s.safeToRetire)).toEqual([false, false]);
    expect(telemetry.secrets[1]!.lastVerifiedAt).toBeNull();
  });
});

describe("clock skew", () => {
  it("each receipt records receive time minus webhook-timestamp", async () => {
    const early = event();
    await deliver(early, { secrets: [NEW], timestamp: new Date(Date.now() - 120_000) });
    const skew = (await receiptOf(early.id)).clockSkewMs!;
    expect(skew).toBeGreaterThanOrEqual(119_000);
    expect(skew).toBeLessThan(125_000);

    const ahead = event();
    await deliver(ahead, { secrets: [NEW], timestamp: new Date(Date.now() + 60_000) });
    expect((await receiptOf(ahead.id)).clockSkewMs!).toBeLessThan(-55_000);

    const refused = event();
    expect((await deliver(refused, { secrets: [NEW], timestamp: new Date(Date.now() - 3_600_000) })).status).toBe(401);
    const rejected = await prisma.receipt.findFirstOrThrow({ where: { status: 401 } });
    expect(rejected.clockSkewMs).toBeGreaterThan(3_590_000);

    const telemetry = await getSignatureTelemetry({
      secrets: [OLD, NEW],
      toleranceSeconds: 300,
      retryHorizonHours: HORIZON_HOURS,
    });
    expect(telemetry.skew.expired24h).toBe(1);
    expect(telemetry.skew.samples24h).toBe(3);
    expect(telemetry.skewWarning).toBe(true); // p99 of |skew| is the hour-old one
    expect(telemetry.secrets[1]!.skewP50Ms).toBeGreaterThan(55_000);
  });
});

describe("timestamp tolerance (WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS)", () => {
  const body = '{"id":"evt_tol"}';
  const receivedAt = new Date("2026-12-01T12:00:00.000Z");
  const check = (offsetSeconds: number, toleranceSeconds: number) => {
    const signed = signDelivery({
      body,
      webhookId: "evt_tol",
      secrets: [NEW],
      timestamp: new Date(receivedAt.getTime() + offsetSeconds * 1000),
    });
    return verifySignature(body, signed.headers as never, { secrets: [OLD, NEW], toleranceSeconds, receivedAt })
      .verdict;
  };

  it.each([300, 60, 1800])("tolerance %i s: accepted at ±tolerance, refused at ±(tolerance + 1 s)", (tolerance) => {
    expect(check(-tolerance, tolerance)).toBe("valid");
    expect(check(-(tolerance + 1), tolerance)).toBe("expired");
    expect(check(tolerance, tolerance)).toBe("valid");
    expect(check(tolerance + 1, tolerance)).toBe("expired");
  });

  it("the default is 300 s and the setting is bounded", () => {
    expect(parseEnv({}).WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS).toBe(300);
    expect(() => parseEnv({ WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS: "10" })).toThrow(
      "invalid setting WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS: must be at least 30",
    );
    expect(() => parseEnv({ WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS: "7200" })).toThrow(
      "invalid setting WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS: must be at most 3600",
    );
  });

  it("the ingest honours the setting (60 s: 55 s old accepted, 65 s old refused with the tolerance named)", async () => {
    process.env.WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS = "60";
    resetEnvForTests();
    expect((await deliver(event(), { secrets: [NEW], timestamp: new Date(Date.now() - 55_000) })).status).toBe(200);
    const refused = await deliver(event(), { secrets: [NEW], timestamp: new Date(Date.now() - 65_000) });
    expect(refused).toEqual({ status: 401, body: { error: "webhook-timestamp is outside the ±60 s tolerance" } });
  });

  it("a bad signature, a missing header, a non-numeric timestamp", () => {
    const signed = signDelivery({ body, webhookId: "evt_tol", secrets: [NEW], timestamp: receivedAt });
    const headers = signed.headers as Record<string, string>;
    const verify = (h: Record<string, string | null>, secrets = [OLD]) =>
      verifySignature(body, h as never, { secrets, toleranceSeconds: 300, receivedAt });
    expect(verify(headers).verdict).toBe("invalid");
    expect(verify(headers, [OLD, NEW])).toEqual({
      verdict: "valid",
      secretFingerprint: secretFingerprint(NEW),
      clockSkewMs: 0,
    });
    expect(verify({ ...headers, "webhook-signature": null }).verdict).toBe("missing");
    expect(verify({ ...headers, "webhook-timestamp": "soon" }, [NEW]).verdict).toBe("invalid");
    expect(
      verifySignature(body + " ", headers as never, { secrets: [NEW], toleranceSeconds: 300, receivedAt }).verdict,
    ).toBe("invalid");
  });
});
