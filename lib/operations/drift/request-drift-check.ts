import "server-only";
// A platform admin's "Run drift check": records a requested run (audited) and, in the same
// transaction, queues the worker's drift.check job, whose NOTIFY at commit wakes a worker at once
// (drift-job.ts runs it). The page does not page through the provider itself: a check of a large
// provider takes minutes, longer than a request should. A run already waiting or running is
// answered with that run instead of a second one.
import { prisma, type DbOrTx } from "../../core/db/client";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, actorLabel, type Actor } from "../../core/auth/actor";
import { authorize } from "../../core/auth/permissions";
import { enqueueJob } from "../../core/queue/enqueue-job";

export async function requestDriftCheck(
  options: { actor: Actor; now?: Date },
  db: DbOrTx = prisma,
): Promise<{ runId: string; outcome: "requested" | "already_waiting" }> {
  authorize(options.actor, "drift.run");
  const now = options.now ?? new Date();
  return db.$transaction(async (tx) => {
    // Serializes two admins pressing the button at once (and a worker scheduling its own run).
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('keyhook.drift_request'))`;
    const waiting = await tx.driftRun.findFirst({
      where: {
        OR: [{ status: { in: ["requested", "interrupted"] } }, { status: "running", leaseUntil: { gte: now } }],
      },
      orderBy: { requestedAt: "desc" },
    });
    const run =
      waiting ??
      (await tx.driftRun.create({
        data: { trigger: "button", requestedBy: actorLabel(options.actor), requestedAt: now },
      }));
    const outcome = waiting ? "already_waiting" : "requested";
    // Coalesces with the minute's cron job (same key) when that one has not started yet.
    if (!waiting) await enqueueJob({ task: "drift.check", jobKey: "drift.check" }, tx);
    await recordAudit(
      {
        actor: auditActor(options.actor),
        action: "drift.run",
        target: `drift_runs/${run.id}`,
        outcome: outcome === "requested" ? "ok" : outcome,
      },
      tx,
    );
    return { runId: run.id.toString(), outcome };
  });
}
