// The second factor against real PostgreSQL: wrong codes and wrong passwords share one atomic
// throttle under a concurrent burst, a TOTP code never counts twice, the password step says and
// costs the same whether the account holds a factor, recovery codes work once, a pending
// session is nobody, step-up follows a controlled clock, and a reset ends the sessions.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { hashPassword, scryptHashesComputed } from "@/lib/core/auth/passwords";
import { FREE_ATTEMPTS } from "@/lib/core/auth/sign-in-throttle";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { proveFactor } from "@/lib/core/auth/mfa/prove-factor";
import { issueRecoveryCodes } from "@/lib/core/auth/mfa/recovery-codes";
import { sealTotpSecret, totpStep } from "@/lib/core/auth/mfa/totp";
import { ssoDidMfa } from "@/lib/core/auth/mfa/sso-mfa";
import { loadSession } from "@/lib/core/auth/load-session";
import { resetUserFactors } from "@/lib/operations/users/reset-user-factors";
import { declarationOf, executeAction } from "@/app/_lib/run-action";
import { actorOfSession } from "@/app/_lib/session";
import { resetDatabase } from "../../support/state";
import { totpCode } from "../../support/demo-totp";
import { installControlledClock } from "../../support/controlled-clock";
import { OWN, seedTwoDistricts } from "../../support/dashboard-fixtures";

// Several checks at once (one by default): the throttle must hold when they really overlap.
process.env.SIGN_IN_HASH_CONCURRENCY = "16";
resetEnvForTests();

vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("next-auth", () => ({ getServerSession: async () => null }));

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const password = "correct horse battery";
const t0 = new Date("2026-12-01T10:00:00Z");

async function makeUser(email: string, role: "platform_admin" | "district_admin", withFactor: boolean) {
  if (role === "district_admin")
    await prisma.tenant.upsert({ where: { id: "district-a" }, create: { id: "district-a" }, update: {} });
  const user = await prisma.user.create({
    data: {
      email,
      role,
      tenantId: role === "district_admin" ? "district-a" : null,
      passwordHash: await hashPassword(password),
    },
  });
  if (withFactor) {
    const id = `totp-${user.id}`;
    await prisma.mfaFactor.create({
      data: {
        id,
        userId: user.id,
        kind: "totp",
        label: "app",
        totpSecret: sealTotpSecret(id, SECRET),
        confirmedAt: t0,
      },
    });
  }
  return user;
}

const prove = (userId: string, code: string, now: Date, kind: "totp" | "recovery" = "totp") =>
  proveFactor({ userId, sessionVersion: 0, sessionFactorAt: null, proof: { kind, code }, address: "192.0.2.1", now });

beforeEach(resetDatabase);

describe("TOTP", () => {
  it("accepts a code once: the same code again, or an older step after a newer one, is refused", async () => {
    const user = await makeUser("admin@keyhook.test", "platform_admin", true);
    const step = totpStep(t0);
    expect(await prove(user.id, totpCode(SECRET, step), t0)).toMatchObject({ ok: true, method: "totp" });
    const again = await prove(user.id, totpCode(SECRET, step), new Date(t0.getTime() + 5_000));
    expect(again).toMatchObject({ ok: false, reason: "invalid", code: "FactorRefused" });
    // The step before is still inside the drift window, but older than the one accepted: refused.
    expect(await prove(user.id, totpCode(SECRET, step - 1), t0)).toMatchObject({ ok: false, reason: "invalid" });
    expect(await prove(user.id, totpCode(SECRET, step + 1), t0)).toMatchObject({ ok: true });
    expect(await prove(user.id, "000000", t0)).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("the same code sent twice at once is accepted once", async () => {
    const user = await makeUser("admin@keyhook.test", "platform_admin", true);
    const code = totpCode(SECRET, totpStep(t0));
    const results = await Promise.all(Array.from({ length: 4 }, () => prove(user.id, code, t0)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });
});

describe("one throttle for passwords and codes", () => {
  it("a concurrent burst of wrong codes and wrong passwords gets exactly the checks the backoff allows, in one counter", async () => {
    const user = await makeUser("admin@keyhook.test", "platform_admin", true);
    const attempts = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? prove(user.id, String(100000 + i), t0).then((r) => (r.ok ? "ok" : r.reason))
          : verifyCredentials({ email: user.email, password: `guess-${i}`, address: `10.0.0.${i}`, now: t0 }).then(
              (r) => (r.ok ? "ok" : r.reason),
            ),
      ),
    );
    // At one instant FREE_ATTEMPTS checks in all, of either kind; the rest refused unchecked.
    expect(attempts.filter((r) => r === "invalid")).toHaveLength(FREE_ATTEMPTS);
    expect(attempts.filter((r) => r === "locked")).toHaveLength(24 - FREE_ATTEMPTS);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLogins).toBe(FREE_ATTEMPTS);
    // The right code is refused too while the door is closed, and accepted once it opens.
    const code = totpCode(SECRET, totpStep(t0));
    expect(await prove(user.id, code, t0)).toMatchObject({ ok: false, reason: "locked" });
    expect(await prove(user.id, code, new Date(t0.getTime() + 1_001))).toMatchObject({ ok: true });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLogins).toBe(0);
    // Each failed factor is counted in the audit log (one row per window, with its count).
    expect(await prisma.signInFailure.findFirst({ where: { subject: `factor:user:${user.id}` } })).toMatchObject({
      count: expect.any(Number),
    });
    expect(
      await prisma.auditLog.count({
        where: { action: "sign-in", outcome: "denied", target: `factor:user:${user.id}` },
      }),
    ).toBe(1);
  });

  it("giving the right password again does not wipe the wrong codes before it", async () => {
    const user = await makeUser("admin@keyhook.test", "platform_admin", true);
    for (let i = 0; i < 3; i++) expect((await prove(user.id, "111111", t0)).ok).toBe(false);
    expect(await verifyCredentials({ email: user.email, password, now: t0 })).toMatchObject({
      ok: true,
      factorNext: true,
    });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).failedLogins).toBe(3);
  });
});

describe("no enumeration at the password step", () => {
  it("a wrong password says and costs the same for an account with a factor and one without", async () => {
    const withFactor = await makeUser("a@keyhook.test", "platform_admin", true);
    const without = await makeUser("b@keyhook.test", "platform_admin", false);
    const districtWith = await makeUser("c@district.test", "district_admin", true);
    const districtWithout = await makeUser("d@district.test", "district_admin", false);
    const answers = [];
    for (const user of [withFactor, without, districtWith, districtWithout, { email: "nobody@x.test" }]) {
      const before = scryptHashesComputed();
      const result = await verifyCredentials({
        email: user.email,
        password: "wrong",
        address: "198.51.100.7",
        now: t0,
      });
      answers.push({ result, hashes: scryptHashesComputed() - before });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify({ result: { ok: false, reason: "invalid", code: "InvalidCredentials" }, hashes: 1 })]),
    );
  });
});

describe("recovery codes", () => {
  it("ten, each usable once, and saying how many are left", async () => {
    const user = await makeUser("admin@keyhook.test", "platform_admin", true);
    const codes = await issueRecoveryCodes(user.id);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const stored = await prisma.mfaRecoveryCode.findMany({ where: { userId: user.id } });
    expect(stored.every((row) => !codes.some((code) => row.codeHash.includes(code)))).toBe(true);
    expect(await prove(user.id, codes[3]!.toUpperCase(), t0, "recovery")).toMatchObject({
      ok: true,
      method: "recovery",
      recoveryCodesLeft: 9,
    });
    expect(await prove(user.id, codes[3]!, t0, "recovery")).toMatchObject({ ok: false, reason: "invalid" });
    expect(await prisma.auditLog.findFirstOrThrow({ where: { action: "mfa.recovery-code" } })).toMatchObject({
      details: { method: "recovery", recoveryCodesLeft: 9 },
    });
  });
});

describe("sessions", () => {
  it("a session waiting for its factor is nobody; the policy decides who must enrol", async () => {
    const withFactor = await makeUser("a@keyhook.test", "platform_admin", true);
    const without = await makeUser("b@keyhook.test", "platform_admin", false);
    const district = await makeUser("c@district.test", "district_admin", false);
    const session = (user: { id: string }, factorAt: number | null = null) => ({
      user: { id: user.id, sessionVersion: 0, factorAt },
    });
    expect(await actorOfSession(session(withFactor))).toBeNull();
    expect(await loadSession({ userId: withFactor.id, sessionVersion: 0 })).toMatchObject({ stage: "factor" });
    expect(await loadSession({ userId: without.id, sessionVersion: 0 })).toMatchObject({ stage: "enrol" });
    expect(await actorOfSession(session(district))).toMatchObject({ id: district.id });
    expect(await actorOfSession(session(withFactor, t0.getTime()))).toMatchObject({ id: withFactor.id });
  });

  it("a platform admin's reset removes every factor and code and ends the user's sessions", async () => {
    const admin = await makeUser("a@keyhook.test", "platform_admin", true);
    const target = await makeUser("b@keyhook.test", "platform_admin", true);
    await issueRecoveryCodes(target.id);
    const adminActor = {
      id: admin.id,
      email: admin.email,
      name: null,
      role: "platform_admin" as const,
      tenantId: null,
    };
    await expect(resetUserFactors({ actor: adminActor, userId: admin.id })).rejects.toMatchObject({
      code: "forbidden",
    });
    expect(await resetUserFactors({ actor: adminActor, userId: target.id })).toMatchObject({ removed: 1 });
    expect(await prisma.mfaFactor.count({ where: { userId: target.id } })).toBe(0);
    expect(await prisma.mfaRecoveryCode.count({ where: { userId: target.id } })).toBe(0);
    expect(await loadSession({ userId: target.id, sessionVersion: 0, factorAt: t0.getTime() })).toBeNull();
    expect(await loadSession({ userId: target.id, sessionVersion: 1 })).toMatchObject({ stage: "enrol" });
    expect(await prisma.auditLog.findFirstOrThrow({ where: { action: "mfa.reset" } })).toMatchObject({
      actorId: admin.id,
      target: target.email,
    });
  });
});

describe("step-up", () => {
  it("a revoke asks for a factor again once the last one is older than MFA_STEP_UP_MINUTES (controlled clock)", async () => {
    const actors = await seedTwoDistricts();
    const id = "totp-step-up";
    await prisma.mfaFactor.create({
      data: {
        id,
        userId: actors.platformAdmin.id,
        kind: "totp",
        label: "app",
        totpSecret: sealTotpSecret(id, SECRET),
        confirmedAt: t0,
      },
    });
    const { revokeKeyAction } = await import("@/app/(dashboard)/districts/[tenantId]/actions");
    const revoke = declarationOf(revokeKeyAction)!;
    const form = new FormData();
    form.set("keyId", `key_${OWN}_2`);
    const clock = installControlledClock(t0);
    try {
      const session = {
        actor: actors.platformAdmin,
        stage: "complete" as const,
        factorAt: t0,
        holdsFactor: true,
        sso: false,
      };
      clock.advance(16 * 60_000);
      expect(await executeAction(revoke, session, form)).toMatchObject({
        ok: false,
        stepUp: { methods: ["totp"] },
      });
      expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: `key_${OWN}_2` } })).status).toBe("active");
      clock.set(new Date(t0.getTime() + 14 * 60_000));
      expect(await executeAction(revoke, session, form)).toMatchObject({ ok: true });
    } finally {
      clock.uninstall();
    }
  });
});

describe("single sign-on", () => {
  it("counts the identity provider's MFA by amr or a listed acr", () => {
    const acr = ["http://schemas.openid.net/pape/policies/2007/06/multi-factor"];
    expect(ssoDidMfa({ amr: ["pwd", "mfa"] }, acr)).toBe(true);
    expect(ssoDidMfa({ amr: ["hwk"] }, acr)).toBe(true);
    expect(ssoDidMfa({ amr: ["pwd"] }, acr)).toBe(false);
    expect(ssoDidMfa({ acr: acr[0] }, acr)).toBe(true);
    expect(ssoDidMfa({ acr: "urn:basic" }, acr)).toBe(false);
    expect(ssoDidMfa({}, acr)).toBe(false);
  });
});
