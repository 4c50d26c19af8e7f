// The throttle's address rows and the failed-sign-in counters are purged once they mean nothing
// (lib/operations/retention/purge-sign-in-records.ts), so a spray of guesses cannot grow them for ever.
import { beforeEach, expect, it } from "vitest";
import { purgeSignInRecords } from "@/lib/operations/retention/purge-sign-in-records";
import { ADDRESS_QUIET_MINUTES } from "@/lib/core/auth/sign-in-throttle";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { prisma } from "@/lib/core/db/client";
import { env } from "@/lib/core/config/env";
import { resetDatabase } from "../../support/state";

beforeEach(resetDatabase);

const t0 = new Date("2026-12-01T10:00:00Z");
const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);

it("keeps a locked or recent address and a recent counter; removes quiet addresses and old counters", async () => {
  // 30 guesses from one address lock it; one guess from another leaves it unlocked.
  for (let i = 0; i < 30; i++)
    await verifyCredentials({ email: `nobody-${i}@x.test`, password: "x", address: "203.0.113.1", now: t0 });
  await verifyCredentials({ email: "someone@x.test", password: "x", address: "203.0.113.2", now: t0 });
  const locked = await prisma.signInAddressThrottle.findUniqueOrThrow({ where: { address: "203.0.113.1" } });
  expect(locked.lockedUntil!.getTime()).toBeGreaterThan(t0.getTime());
  expect(await prisma.signInFailure.count()).toBeGreaterThan(0);

  // Within the quiet period nothing goes.
  expect(await purgeSignInRecords({ now: minutes(ADDRESS_QUIET_MINUTES - 1) })).toEqual({
    addressRows: 0,
    failureWindows: 0,
  });
  // Quiet and unlocked: the second address goes; the locked one stays while its lock lasts.
  const afterQuiet = minutes(ADDRESS_QUIET_MINUTES + 1);
  const stillLocked = locked.lockedUntil!.getTime() > afterQuiet.getTime();
  const first = await purgeSignInRecords({ now: afterQuiet });
  expect(first.addressRows).toBe(stillLocked ? 1 : 2);
  expect(await prisma.signInAddressThrottle.findUnique({ where: { address: "203.0.113.2" } })).toBeNull();

  // Counters stay for the retention, then go; the audit rows they belong to stay.
  const auditRows = await prisma.auditLog.count({ where: { action: "sign-in" } });
  const SIGN_IN_FAILURE_RETENTION_DAYS = env().SIGN_IN_FAILURE_RETENTION_DAYS;
  expect(await purgeSignInRecords({ now: minutes(SIGN_IN_FAILURE_RETENTION_DAYS * 1440 - 60) })).toMatchObject({
    failureWindows: 0,
  });
  const later = await purgeSignInRecords({ now: minutes(SIGN_IN_FAILURE_RETENTION_DAYS * 1440 + 60) });
  expect(later.failureWindows).toBeGreaterThan(0);
  expect(await prisma.signInFailure.count()).toBe(0);
  expect(await prisma.signInAddressThrottle.count()).toBe(0);
  expect(await prisma.auditLog.count({ where: { action: "sign-in" } })).toBe(auditRows);
});
