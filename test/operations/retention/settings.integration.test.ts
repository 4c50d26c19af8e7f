import { auditActor, type Actor } from "@/lib/core/auth/actor";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { parseEnv } from "@/lib/core/config/env";
import { AppError } from "@/lib/core/errors";
import { getRetentionSettings, updateRetentionSettings } from "@/lib/operations/retention/settings";
import { DEFAULT_RETRY_SCHEDULE_MS } from "@/simulator/config";
import { resetDatabase } from "../../support/state";
import { isAppError } from "@/lib/core/errors";

const admin: Actor = {
  id: "u_admin",
  email: "platform-admin@example.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};

beforeEach(resetDatabase);

async function refusal(run: () => Promise<unknown>): Promise<AppError> {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("retention settings", () => {
  it("defaults to the environment: 14 days, the provider's 28 h horizon, 24 h margin, payload 7 days", async () => {
    expect(await getRetentionSettings()).toEqual({
      retentionDays: 14,
      retryHorizonHours: 28,
      horizonFloor: expect.objectContaining({ hours: 28, bound: "configured" }),
      marginHours: 24,
      payloadRetentionDays: 7,
    });
  });

  it("stores an override and its audit entry", async () => {
    const saved = await updateRetentionSettings({
      retentionDays: 10,
      retryHorizonHours: 48,
      payloadRetentionDays: 3,
      actor: admin,
    });

    expect(saved).toMatchObject({ retentionDays: 10, retryHorizonHours: 48, marginHours: 24, payloadRetentionDays: 3 });
    expect(await getRetentionSettings()).toEqual(saved);
    const audit = await prisma.auditLog.findMany();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "settings.update",
      actor: auditActor(admin).label,
      target: "retention",
      outcome: "ok",
    });
    expect(audit[0]!.details).toEqual({
      before: { retentionDays: 14, retryHorizonHours: 28, payloadRetentionDays: 7 },
      after: { retentionDays: 10, retryHorizonHours: 48, payloadRetentionDays: 3 },
    });
  });

  it("refuses a window not strictly longer than horizon + margin, naming both numbers, and writes nothing", async () => {
    // 3 days = 72 h, exactly 48 h + 24 h: equal is not enough.
    const error = await refusal(() =>
      updateRetentionSettings({ retentionDays: 3, retryHorizonHours: 48, actor: admin }),
    );

    expect(error.code).toBe("bad_request");
    expect(error.publicMessage).toContain("retention window 3 days (72 h)");
    expect(error.publicMessage).toContain("retry horizon 48 h + margin 24 h");
    expect(await prisma.setting.count()).toBe(0);
    expect(await prisma.auditLog.count()).toBe(0);
  });

  it("accepts a window one hour longer than horizon + margin", async () => {
    const saved = await updateRetentionSettings({ retentionDays: 3, retryHorizonHours: 47, actor: admin });
    expect(saved.retentionDays).toBe(3);
    // The payload window follows a shorter claim window down rather than outliving it.
    expect(saved.payloadRetentionDays).toBe(3);
  });

  it("refuses a payload kept longer than its claim, and input that is not whole numbers", async () => {
    const longer = await refusal(() =>
      updateRetentionSettings({ retentionDays: 10, retryHorizonHours: 28, payloadRetentionDays: 11, actor: admin }),
    );
    expect(longer.publicMessage).toBe("payload retention 11 days must not exceed the retention window 10 days");

    const fraction = await refusal(() =>
      updateRetentionSettings({ retentionDays: 10.5, retryHorizonHours: 28, actor: admin }),
    );
    expect(fraction.publicMessage).toBe("retention days must be a whole number");

    const text = await refusal(() =>
      updateRetentionSettings({ retentionDays: "14" as unknown as number, retryHorizonHours: 28, actor: admin }),
    );
    expect(text.publicMessage).toBe("retention days must be a number");

    // Only a platform admin may change them; anyone else is refused before anything is read.
    await expect(
      updateRetentionSettings({ retentionDays: 14, retryHorizonHours: 28, actor: { ...admin, role: "support" } }),
    ).rejects.toSatisfy((error) => isAppError(error, "forbidden") || isAppError(error, "not_found"));
    expect(await prisma.setting.count()).toBe(0);
  });

  it("commits the settings and the audit entry together: a failed audit write leaves the settings unchanged", async () => {
    await prisma.$executeRawUnsafe(`CREATE FUNCTION test_refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit unavailable'; END; $$`);
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER test_refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION test_refuse_audit()`,
    );
    try {
      await expect(updateRetentionSettings({ retentionDays: 20, retryHorizonHours: 28, actor: admin })).rejects.toThrow(
        /audit unavailable/,
      );
      expect(await prisma.setting.count()).toBe(0);
      expect((await getRetentionSettings()).retentionDays).toBe(14);
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER test_refuse_audit ON audit_log`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION test_refuse_audit()`);
    }
  });

  it("never guesses when the stored value is unreadable", async () => {
    await prisma.setting.create({ data: { key: "retention", value: { retentionDays: "forever" } } });
    const error = await refusal(() => getRetentionSettings());
    expect(error.code).toBe("invalid_setting");
    expect(error.publicMessage).toContain("invalid stored setting retention");
  });
});

describe("startup refusal (lib/core/config/env.ts)", () => {
  it("the default retry horizon covers the provider's documented schedule (the simulator's, Svix's)", () => {
    const scheduleHours = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0) / 3_600_000;
    expect(scheduleHours).toBeCloseTo(27.58, 1);
    expect(parseEnv({}).PROVIDER_RETRY_HORIZON_HOURS).toBeGreaterThanOrEqual(Math.ceil(scheduleHours));
  });

  it("refuses a default window not longer than horizon + margin, naming both numbers", () => {
    expect(() =>
      parseEnv({ RETENTION_DAYS: "2", PROVIDER_RETRY_HORIZON_HOURS: "28", RETENTION_MARGIN_HOURS: "20" }),
    ).toThrow(
      "invalid setting RETENTION_DAYS: retention window 2 days (48 h) must be longer than the provider retry horizon 28 h + margin 20 h = 48 h",
    );
    expect(() =>
      parseEnv({ RETENTION_DAYS: "3", PROVIDER_RETRY_HORIZON_HOURS: "28", RETENTION_MARGIN_HOURS: "20" }),
    ).not.toThrow();
  });

  it("refuses a payload window longer than the claim window and a short cron secret", () => {
    expect(() => parseEnv({ RETENTION_DAYS: "14", PAYLOAD_RETENTION_DAYS: "15" })).toThrow(
      "invalid setting PAYLOAD_RETENTION_DAYS: payload retention 15 days must not exceed the retention window 14 days",
    );
    expect(() => parseEnv({ CRON_SECRET: "short" })).toThrow(
      "invalid setting CRON_SECRET: must be at least 16 characters",
    );
    expect(parseEnv({ CRON_SECRET: "" }).CRON_SECRET).toBeUndefined();
  });
});
