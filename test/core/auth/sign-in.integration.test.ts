// Credentials sign-in on real PostgreSQL: scrypt (bcrypt hashes upgraded on sign-in), per-account
// and per-address backoff decided and counted atomically, the same answer and the same work for
// every refusal, and failures counted per window instead of one audit row each.
import bcrypt from "bcryptjs";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { loadActor } from "@/lib/core/auth/load-actor";
import { hashPassword, scryptHashesComputed } from "@/lib/core/auth/passwords";
import {
  ADDRESS_FREE_ATTEMPTS,
  FREE_ATTEMPTS,
  lockSecondsAfter,
  MAX_LOCK_SECONDS,
} from "@/lib/core/auth/sign-in-throttle";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { resetDatabase } from "../../support/state";

const email = "admin@district.test";
const password = "correct horse battery";
let userId: string;

beforeEach(async () => {
  await resetDatabase();
  await prisma.tenant.create({ data: { id: "district-a" } });
  userId = (
    await prisma.user.create({
      data: { email, role: "district_admin", tenantId: "district-a", passwordHash: await hashPassword(password) },
    })
  ).id;
});

const failedLogins = async () => (await prisma.user.findUniqueOrThrow({ where: { id: userId } })).failedLogins;

describe("verifyCredentials", () => {
  it("signs in with the right password (email case-insensitive) and audits it", async () => {
    const result = await verifyCredentials({ email: "Admin@District.test ", password });
    expect(result).toMatchObject({
      ok: true,
      sessionVersion: 0,
      actor: { id: userId, role: "district_admin", tenantId: "district-a" },
    });
    expect(await prisma.auditLog.findFirstOrThrow({ where: { action: "sign-in" } })).toMatchObject({
      actorId: userId,
      outcome: "ok",
    });
  });

  it("backs off after repeated failures, does not count attempts while locked, and lets the owner in after the wait", async () => {
    const t0 = new Date("2026-12-01T10:00:00Z");
    for (let i = 0; i < FREE_ATTEMPTS; i++)
      expect((await verifyCredentials({ email, password: "x", now: t0 })).ok).toBe(false);
    const locked = await verifyCredentials({ email, password, now: t0 });
    expect(locked).toMatchObject({ ok: false, reason: "locked", code: "InvalidCredentials" });
    // Hammering while locked neither counts nor extends the wait.
    for (let i = 0; i < 20; i++) await verifyCredentials({ email, password: "x", now: t0 });
    expect(await failedLogins()).toBe(FREE_ATTEMPTS);
    const later = new Date(t0.getTime() + 1_500);
    expect(await verifyCredentials({ email, password, now: later })).toMatchObject({ ok: true });
    expect(await failedLogins()).toBe(0);
  });

  it("the wait is capped, so an attacker can never lock the owner out for long", async () => {
    expect(lockSecondsAfter(FREE_ATTEMPTS - 1)).toBe(0);
    expect(lockSecondsAfter(FREE_ATTEMPTS)).toBe(1);
    expect(lockSecondsAfter(1_000_000)).toBe(MAX_LOCK_SECONDS);
    await prisma.user.update({ where: { id: userId }, data: { failedLogins: 10_000 } });
    const now = new Date("2026-12-01T10:00:00Z");
    await verifyCredentials({ email, password: "x", now });
    const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
    expect(user.lockedUntil!.getTime() - now.getTime()).toBe(MAX_LOCK_SECONDS * 1000);
  });

  it("25 simultaneous wrong passwords get exactly the checks the backoff allows (decided and counted in one statement)", async () => {
    const now = new Date("2026-12-01T10:00:00Z");
    const before = scryptHashesComputed();
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        verifyCredentials({ email, password: `guess-${i}`, address: `10.0.0.${i}`, now }),
      ),
    );
    // At one instant the backoff allows FREE_ATTEMPTS checks; everything after is refused unchecked.
    expect(results.filter((r) => !r.ok && r.reason === "invalid")).toHaveLength(FREE_ATTEMPTS);
    expect(results.filter((r) => !r.ok && r.reason === "locked")).toHaveLength(25 - FREE_ATTEMPTS);
    expect(await failedLogins()).toBe(FREE_ATTEMPTS);
    // ... yet every attempt cost one hash (the refused ones against the dummy), 25 in all
    // (+1 at most: the dummy hash itself, computed on first use).
    expect(scryptHashesComputed() - before).toBeGreaterThanOrEqual(25);
    expect(scryptHashesComputed() - before).toBeLessThanOrEqual(26);
    expect(new Set(results.map((r) => (r.ok ? "ok" : r.code)))).toEqual(new Set(["InvalidCredentials"]));
    // And the owner, right after the burst, is throttled like everyone else, then let in.
    expect(await verifyCredentials({ email, password, now })).toMatchObject({ ok: false, reason: "locked" });
    expect(await verifyCredentials({ email, password, now: new Date(now.getTime() + 1_001) })).toMatchObject({
      ok: true,
    });
  });

  it("a burst in real time never checks more than the backoff allows", async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        verifyCredentials({ email, password: `guess-${i}`, address: `10.1.0.${i}` }),
      ),
    );
    const checked = results.filter((r) => !r.ok && r.reason === "invalid").length;
    // FREE_ATTEMPTS free, then one more per elapsed lock (1 s, 2 s, …): the burst takes well under 3 s here.
    expect(checked).toBeGreaterThanOrEqual(FREE_ATTEMPTS);
    expect(checked).toBeLessThanOrEqual(FREE_ATTEMPTS + 2);
    expect(await failedLogins()).toBe(checked);
  });

  it("throttles a client address across emails, with the same answer", async () => {
    const now = new Date("2026-12-01T10:00:00Z");
    const results = [];
    for (let i = 0; i < ADDRESS_FREE_ATTEMPTS + 5; i++)
      results.push(
        await verifyCredentials({ email: `nobody-${i}@x.test`, password: "x", address: "203.0.113.9", now }),
      );
    expect(results.slice(0, ADDRESS_FREE_ATTEMPTS).every((r) => !r.ok && r.reason === "invalid")).toBe(true);
    expect(results.slice(ADDRESS_FREE_ATTEMPTS).every((r) => !r.ok && r.reason === "locked")).toBe(true);
    // Even the right password of a real account is refused from that address while it is closed ...
    expect(await verifyCredentials({ email, password, address: "203.0.113.9", now })).toMatchObject({
      ok: false,
      reason: "locked",
      code: "InvalidCredentials",
    });
    // ... but not from another one.
    expect(await verifyCredentials({ email, password, address: "198.51.100.1", now })).toMatchObject({ ok: true });
  });

  it("a disabled user gets the same answer as a wrong password, and loses access on the next request", async () => {
    expect(await loadActor(userId)).toMatchObject({ id: userId });
    await prisma.user.update({ where: { id: userId }, data: { disabledAt: new Date() } });
    expect(await loadActor(userId)).toBeNull();
    const disabled = await verifyCredentials({ email, password });
    expect(disabled).toMatchObject({ ok: false, reason: "disabled", code: "InvalidCredentials" });
  });

  it("verifies an old bcrypt hash once and upgrades it to scrypt without ending other sessions", async () => {
    await prisma.user.update({ where: { id: userId }, data: { passwordHash: await bcrypt.hash(password, 4) } });
    const { sessionVersion } = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
    expect(await verifyCredentials({ email, password })).toMatchObject({ ok: true, sessionVersion });
    const upgraded = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
    expect(upgraded.passwordHash).toMatch(/^scrypt\$4096\$8\$1\$/);
    expect(upgraded.sessionVersion).toBe(sessionVersion);
    expect(await verifyCredentials({ email, password })).toMatchObject({ ok: true });
    expect(await verifyCredentials({ email, password: "wrong" })).toMatchObject({ ok: false, reason: "invalid" });
  });
});

describe("no enumeration", () => {
  const cases = {
    unknown: () => verifyCredentials({ email: "nobody@x.test", password: "nope", address: "a1" }),
    wrong: () => verifyCredentials({ email, password: "nope", address: "a2" }),
    throttled: () => verifyCredentials({ email: "locked@district.test", password: "nope", address: "a3" }),
    disabled: () => verifyCredentials({ email: "disabled@district.test", password: "nope", address: "a4" }),
    disabledRightPassword: () => verifyCredentials({ email: "disabled@district.test", password, address: "a5" }),
  };

  beforeEach(async () => {
    const passwordHash = await hashPassword(password);
    await prisma.user.create({
      data: {
        email: "locked@district.test",
        role: "support",
        passwordHash,
        failedLogins: 50,
        lockedUntil: new Date(Date.now() + 3_600_000),
      },
    });
    await prisma.user.create({
      data: { email: "disabled@district.test", role: "support", passwordHash, disabledAt: new Date() },
    });
  });

  it("answers every refusal with the same code and computes exactly one hash for each", async () => {
    await cases.unknown(); // warm-up: the dummy hash is computed on first use
    const seen: Record<string, unknown> = {};
    for (const [name, run] of Object.entries(cases)) {
      const before = scryptHashesComputed();
      const result = await run();
      expect(scryptHashesComputed() - before, name).toBe(1);
      expect(result.ok, name).toBe(false);
      seen[name] = result.ok ? null : result.code;
    }
    expect(new Set(Object.values(seen))).toEqual(new Set(["InvalidCredentials"]));
  });
});
