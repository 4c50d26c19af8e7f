"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runReadinessAs } from "@/lib/operations/readiness/run-readiness";
import { action } from "../../_lib/run-action";

export const runReadinessAction = action("readiness.run", z.object({}), async (_input, actor) => {
  const result = await runReadinessAs({ actor });
  revalidatePath("/readiness");
  revalidatePath("/overview");
  const failed = result.steps.filter((s) => !s.passed);
  const warned = result.steps.filter((s) => s.passed && s.warning).length;
  return failed.length === 0
    ? `Ready for retries: all ${result.steps.length} steps passed${warned > 0 ? `, ${warned} with a warning` : ""} (run ${result.id}).`
    : {
        ok: false,
        message: `Not ready for retries: ${failed.length} of ${result.steps.length} steps failed (run ${result.id}). See what to fix below.`,
      };
});
