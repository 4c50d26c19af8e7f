import "server-only";
// The retry-readiness check: the articles' checklist, run for real against the running system on
// the canary district. Every run is stored (who, when, each step's evidence) and audited. Steps
// run one after the other: the history step reconciles the duplicate step's event, and the forced
// failure must not hold the lock while the other deliveries are in flight.
import { randomBytes } from "node:crypto";
import { recordAudit, type AuditActor } from "../../core/audit/record-audit";
import { auditActor, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { prisma, type Db } from "../../core/db/client";
import { env } from "../../core/config/env";
import { AppError } from "../../core/errors";
import { describeError, log } from "../../core/log";
import { providerClientFromEnv } from "../provider/client";
import { getRegisteredHookId } from "../provider/webhook-registration";
import { expectedWebhookUrl } from "../../core/config/webhook-url";
import { CANARY_TENANT_ID } from "../../core/tenancy/canary";
import { checkDeliveryHistory } from "./step-delivery-history";
import { checkDuplicateDelivery } from "./step-duplicate-delivery";
import { checkFailoverDurability } from "./step-failover-durability";
import { checkForcedFailure } from "./step-forced-failure";
import { checkBackups } from "./step-backups";
import { checkRetention } from "./step-retention";
import type { ReadinessContext, ReadinessProvider, ReadinessStepId, StepResult } from "./types";

export type ReadinessRunResult = {
  id: string;
  passed: boolean;
  startedAt: Date;
  finishedAt: Date;
  actor: string;
  trigger: string;
  steps: StepResult[];
};

type RunReadinessOptions = {
  actor: AuditActor;
  trigger: "dashboard" | "cli";
  /** Defaults: the deployment's (PROVIDER_URL client, registered hook, expected webhook URL). */
  provider?: ReadinessProvider | null;
  hookId?: string | null;
  webhookUrl?: string;
  databaseUrl?: string;
  waitTimeoutMs?: number;
  now?: () => Date;
};

/** A run younger than this without a finish is taken to be in progress (they would share the canary). */
const IN_PROGRESS_MS = 2 * 60_000;

export async function runReadiness(options: RunReadinessOptions, db: Db = prisma): Promise<ReadinessRunResult> {
  const config = env();
  const now = options.now ?? (() => new Date());
  const running = await db.readinessRun.findFirst({
    where: { finishedAt: null, startedAt: { gt: new Date(now().getTime() - IN_PROGRESS_MS) } },
  });
  if (running) throw new AppError("conflict", "a readiness run is already in progress; wait for it to finish");

  const run = await db.readinessRun.create({
    data: { actor: options.actor.label, trigger: options.trigger, startedAt: now() },
  });
  const provider = options.provider === undefined ? providerClientFromEnv({ maxRetries: 2 }) : options.provider;
  const hookId = options.hookId === undefined ? await getRegisteredHookId(db) : options.hookId;
  const context: ReadinessContext = {
    db,
    webhookUrl: options.webhookUrl ?? expectedWebhookUrl(config).url,
    provider,
    hookId,
    hookMissing: await providerLostHook(provider, hookId),
    secrets: config.WEBHOOK_SECRETS,
    ingestTimeoutMs: config.INGEST_TX_TIMEOUT_MS,
    waitTimeoutMs: options.waitTimeoutMs ?? 20_000,
    runId: `${run.id}-${randomBytes(4).toString("hex")}`,
    now,
  };

  const steps: StepResult[] = [];
  const guarded = async (id: ReadinessStepId, title: string, step: () => Promise<StepResult>) => {
    const started = Date.now();
    try {
      steps.push(await step());
    } catch (error) {
      log.error("readiness step failed to run", { step: id, error: describeError(error) });
      steps.push({
        id,
        title,
        passed: false,
        summary: `the step could not run: ${describeError(error)}`,
        fix: "See the app log; fix the cause and run the check again.",
        evidence: {},
        durationMs: Date.now() - started,
      });
    }
  };

  let delivery: Awaited<ReturnType<typeof checkDuplicateDelivery>>["delivery"] = null;
  await guarded("duplicate_delivery", "One event delivered twice → one transition", async () => {
    const outcome = await checkDuplicateDelivery(context);
    delivery = outcome.delivery;
    return outcome.result;
  });
  await guarded("forced_failure", "A forced failure → non-2xx, nothing committed", () =>
    checkForcedFailure(context, { databaseUrl: options.databaseUrl }),
  );
  await guarded("delivery_history", "Delivery history reconciled", () => checkDeliveryHistory(context, delivery));
  await guarded("retention", "Retention and purge", () => checkRetention(context));
  await guarded("failover_durability", "An acknowledged change survives a failover", () =>
    checkFailoverDurability(context),
  );
  await guarded("backups", "A lost database can be restored", () => checkBackups(context));

  const passed = steps.every((s) => s.passed);
  const finishedAt = now();
  await db.readinessRun.update({
    where: { id: run.id },
    data: { finishedAt, passed, steps: JSON.parse(JSON.stringify(steps)) },
  });
  await recordAudit(
    {
      actor: options.actor,
      action: "readiness.run",
      tenantId: CANARY_TENANT_ID,
      target: `readiness_runs/${run.id}`,
      outcome: passed ? "ok" : "failed",
      details: { trigger: options.trigger, failed_steps: steps.filter((s) => !s.passed).map((s) => s.id) },
    },
    db,
  );
  log.info("readiness run", {
    run_id: run.id.toString(),
    passed,
    failed: steps.filter((s) => !s.passed).map((s) => s.id),
  });
  return {
    id: run.id.toString(),
    passed,
    startedAt: run.startedAt,
    finishedAt,
    actor: options.actor.label,
    trigger: options.trigger,
    steps,
  };
}

/** Asked once: our stored hook id is only what we last heard. Unreachable: step 1 reports the provider's error. */
async function providerLostHook(provider: ReadinessProvider | null, hookId: string | null): Promise<boolean> {
  if (!provider || !hookId) return false;
  try {
    return (await provider.getWebhook({ hookId })) === null;
  } catch (error) {
    log.warn("readiness: could not ask the provider for our webhook", { error: describeError(error) });
    return false;
  }
}

/** From the dashboard: staff only, recorded under the signed-in person. */
export async function runReadinessAs(options: { actor: Actor }, db: Db = prisma): Promise<ReadinessRunResult> {
  authorize(options.actor, "readiness.run");
  return runReadiness({ actor: auditActor(options.actor), trigger: "dashboard" }, db);
}
