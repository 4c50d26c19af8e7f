import "server-only";
// The retention settings of the dedupe ledger (docs/design.md, invariant 6). The environment holds the
// defaults; a platform admin may override them from the settings form, stored as one JSON row
// (settings.key = "retention") so the three numbers always change together.
//
// Payload vs claim: the claim (tenant_id, event_id, outcome, …) is what dedupes a late retry, so
// it stays for the whole window. The stored body is only for people (inspecting, a local replay)
// and is most of the row's bytes and all of its tenant data (key prefix, scopes), so by default it
// goes after 7 days: that still covers the provider's retry horizon plus margin and a weekend's
// incident investigation, while the claims that matter for dedupe keep their full window.
import { z } from "zod";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { prisma, type DbOrTx } from "../../core/db/client";
import { env } from "../../core/config/env";
import { AppError } from "../../core/errors";
import { OBSERVED_RETRY_SETTING, parseObservedRetry } from "../provider/observe-retries";
import { retentionWindowProblem } from "../../core/retention/retention-window";
import { retryHorizonFloor, type RetryHorizonFloor } from "../../core/retention/retry-horizon";

const RETENTION_SETTING_KEY = "retention";
const DEFAULT_PAYLOAD_RETENTION_DAYS = 7;

type RetentionSettings = {
  retentionDays: number;
  /** In force: the declared horizon, raised to `horizonFloor` when it is below. */
  retryHorizonHours: number;
  /** The least horizon allowed, and which bound sets it (retry-horizon.ts). */
  horizonFloor: RetryHorizonFloor;
  /** From RETENTION_MARGIN_HOURS only: a deployment decision, not a form field. */
  marginHours: number;
  payloadRetentionDays: number;
};

const wholeNumber = (label: string, min: number, max: number) =>
  z
    .number({ error: `${label} must be a number` })
    .int(`${label} must be a whole number`)
    .min(min, `${label} must be at least ${min}`)
    .max(max, `${label} must be at most ${max}`);

const storedSchema = z.object({
  retentionDays: wholeNumber("retention days", 1, 3650),
  retryHorizonHours: wholeNumber("retry horizon hours", 1, 24 * 365),
  payloadRetentionDays: wholeNumber("payload retention days", 1, 3650).optional(),
});

function defaults(horizonFloor: RetryHorizonFloor): RetentionSettings {
  const config = env();
  return {
    retentionDays: config.RETENTION_DAYS,
    retryHorizonHours: horizonFloor.hours,
    horizonFloor,
    marginHours: config.RETENTION_MARGIN_HOURS,
    payloadRetentionDays:
      config.PAYLOAD_RETENTION_DAYS ?? Math.min(DEFAULT_PAYLOAD_RETENTION_DAYS, config.RETENTION_DAYS),
  };
}

/**
 * The settings in force: the stored override, else the environment's defaults, with the horizon
 * never below its floor. It does not refuse an unsafe combination (the form must still be able to
 * show it); `runPurge` and the readiness check do.
 */
export async function getRetentionSettings(db: DbOrTx = prisma): Promise<RetentionSettings> {
  const rows = await db.setting.findMany({ where: { key: { in: [RETENTION_SETTING_KEY, OBSERVED_RETRY_SETTING] } } });
  const horizonFloor = retryHorizonFloor({
    configuredHours: env().PROVIDER_RETRY_HORIZON_HOURS,
    observed: parseObservedRetry(rows.find((r) => r.key === OBSERVED_RETRY_SETTING)?.value),
  });
  const base = defaults(horizonFloor);
  const row = rows.find((r) => r.key === RETENTION_SETTING_KEY);
  if (!row) return base;
  const stored = storedSchema.safeParse(row.value);
  if (!stored.success) {
    // Never guess a window: purging with the wrong one can make a late retry apply twice.
    throw new AppError(
      "invalid_setting",
      `invalid stored setting ${RETENTION_SETTING_KEY}: ${stored.error.issues[0]?.message}`,
    );
  }
  return {
    retentionDays: stored.data.retentionDays,
    retryHorizonHours: Math.max(stored.data.retryHorizonHours, horizonFloor.hours),
    horizonFloor,
    marginHours: base.marginHours,
    payloadRetentionDays:
      stored.data.payloadRetentionDays ?? Math.min(base.payloadRetentionDays, stored.data.retentionDays),
  };
}

const updateSchema = z.object({
  retentionDays: wholeNumber("retention days", 1, 3650),
  retryHorizonHours: wholeNumber("retry horizon hours", 1, 24 * 365),
  payloadRetentionDays: wholeNumber("payload retention days", 1, 3650).optional(),
});

type UpdateRetentionSettingsInput = {
  retentionDays: number;
  retryHorizonHours: number;
  /** Omitted: keep the current payload retention (capped at the new window). */
  payloadRetentionDays?: number;
  actor: Actor;
};

/** A platform admin's new settings: validated, stored and audited in one transaction. */
export async function updateRetentionSettings(
  input: UpdateRetentionSettingsInput,
  db: DbOrTx = prisma,
): Promise<RetentionSettings> {
  authorize(input.actor, "retention.edit");
  const actor = auditActor(input.actor);
  const parsed = updateSchema.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]!.message);
  const requested = parsed.data;

  return db.$transaction(async (tx) => {
    const before = await getRetentionSettings(tx);
    if (requested.retryHorizonHours < before.horizonFloor.hours) {
      throw new AppError(
        "bad_request",
        `the provider retry horizon must be at least ${before.horizonFloor.hours} h, not ${requested.retryHorizonHours} h: ${before.horizonFloor.explanation}`,
        { field: "retryHorizonHours" },
      );
    }
    const after: RetentionSettings = {
      retentionDays: requested.retentionDays,
      retryHorizonHours: requested.retryHorizonHours,
      horizonFloor: before.horizonFloor,
      marginHours: before.marginHours,
      payloadRetentionDays:
        requested.payloadRetentionDays ?? Math.min(before.payloadRetentionDays, requested.retentionDays),
    };
    const problem = retentionWindowProblem(after);
    if (problem) throw new AppError("bad_request", problem.message, { field: problem.field });

    const value = {
      retentionDays: after.retentionDays,
      retryHorizonHours: after.retryHorizonHours,
      payloadRetentionDays: after.payloadRetentionDays,
    };
    await tx.setting.upsert({
      where: { key: RETENTION_SETTING_KEY },
      create: { key: RETENTION_SETTING_KEY, value, updatedBy: actor.label },
      update: { value, updatedBy: actor.label, updatedAt: new Date() },
    });
    await recordAudit(
      {
        actor,
        action: "settings.update",
        target: RETENTION_SETTING_KEY,
        outcome: "ok",
        details: { before: withoutMargin(before), after: value },
      },
      tx,
    );
    return after;
  });
}

function withoutMargin(settings: RetentionSettings) {
  return {
    retentionDays: settings.retentionDays,
    retryHorizonHours: settings.retryHorizonHours,
    payloadRetentionDays: settings.payloadRetentionDays,
  };
}
