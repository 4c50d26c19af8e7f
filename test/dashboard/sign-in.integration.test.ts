// Credentials sign-in: bcrypt, per-account backoff that is capped (never a lockout), audit of
// every attempt, and a disabled user losing access on the next request.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db";
import { loadActor } from "@/lib/auth/load-actor";
import { hashPassword } from "@/lib/auth/passwords";
import { FREE_ATTEMPTS, lockSecondsAfter, MAX_LOCK_SECONDS } from "@/lib/auth/sign-in-throttle";
import { verifyCredentials } from "@/lib/auth/verify-credentials";
import { resetDatabase } from "../support/state";

const email = "admin@district.test";
const password = "correct horse battery";
let userId: string;

beforeEach(async () => {
  await resetDatabase();
  await prisma.tenant.create({ data: { id: "district-a" } });
  userId = (await prisma.user.create({ data: { email, role: "district_admin", tenantId: "district-a", passwordHash: await hashPassword(password) } })).id;
});

describe("verifyCredentials", () => {
  it("signs in with the right password (email case-insensitive) and audits it", async () => {
    const result = await verifyCredentials({ email: "Admin@District.test ", password });
    expect(result).toMatchObject({ ok: true, actor: { id: userId, role: "district_admin", tenantId: "district-a" } });
    expect(await prisma.auditLog.findFirstOrThrow({ where: { action: "sign-in" } })).toMatchObject({ actorId: userId, outcome: "ok" });
  });

  it("answers a wrong password and an unknown email with the same message", async () => {
    const wrong = await verifyCredentials({ email, password: "nope" });
    const unknown = await verifyCredentials({ email: "nobody@x.test", password: "nope" });
    expect(wrong).toEqual({ ok: false, reason: "invalid", message: "Invalid email or password." });
    expect(unknown).toEqual(wrong);
    expect(await prisma.auditLog.count({ where: { action: "sign-in", outcome: "denied" } })).toBe(2);
  });

  it("backs off after repeated failures, does not count attempts while locked, and lets the owner in after the wait", async () => {
    const t0 = new Date("2026-12-01T10:00:00Z");
    for (let i = 0; i < FREE_ATTEMPTS; i++) expect((await verifyCredentials({ email, password: "x", now: t0 })).ok).toBe(false);
    const locked = await verifyCredentials({ email, password, now: t0 });
    expect(locked).toMatchObject({ ok: false, reason: "locked", retryAfterSeconds: 1 });
    // Hammering while locked neither counts nor extends the wait.
    for (let i = 0; i < 20; i++) await verifyCredentials({ email, password: "x", now: t0 });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: userId } })).failedLogins).toBe(FREE_ATTEMPTS);
    const later = new Date(t0.getTime() + 1_500);
    expect(await verifyCredentials({ email, password, now: later })).toMatchObject({ ok: true });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: userId } })).failedLogins).toBe(0);
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

  it("a disabled user cannot sign in and loses access on the next request", async () => {
    expect(await loadActor(userId)).toMatchObject({ id: userId });
    await prisma.user.update({ where: { id: userId }, data: { disabledAt: new Date() } });
    expect(await loadActor(userId)).toBeNull();
    expect(await verifyCredentials({ email, password })).toMatchObject({ ok: false, reason: "disabled" });
  });
});
