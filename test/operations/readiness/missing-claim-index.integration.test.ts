// The readiness check on a database without the claim's unique index: the duplicate
// step must fail and name the index as the fix. This file's own database has the index dropped.
import { afterAll, beforeAll, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { claimIndexPresent } from "@/lib/operations/readiness/claim-index";
import { runReadiness } from "@/lib/operations/readiness/run-readiness";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { startRunningSystem, type RunningSystem } from "../../support/readiness-system";

let system: RunningSystem;
beforeAll(async () => {
  system = await startRunningSystem();
  await runPurge({ trigger: "cli" });
  expect(await claimIndexPresent(prisma)).toBe(true);
  await prisma.$executeRawUnsafe(`DROP INDEX "processed_events_tenant_id_event_id_key"`);
}, 60_000);
afterAll(async () => {
  await system?.stop();
});

it("fails the duplicate step, naming the missing unique index, when the claim has none", async () => {
  expect(await claimIndexPresent(prisma)).toBe(false);
  const result = await runReadiness({
    actor: { id: null, label: "ci" },
    trigger: "cli",
    provider: system.client,
    webhookUrl: system.webhookUrl,
    waitTimeoutMs: 10_000,
  });
  const duplicate = result.steps.find((s) => s.id === "duplicate_delivery")!;
  expect(duplicate.passed).toBe(false);
  expect(duplicate.evidence.claim_unique_index).toBe("missing");
  expect(duplicate.fix).toMatch(
    /unique index on processed_events \(tenant_id, event_id\) is missing: run `npm run db:migrate`/,
  );
  expect(result.passed).toBe(false);
});
