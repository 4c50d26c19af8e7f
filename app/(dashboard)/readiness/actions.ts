"use server";
import { revalidatePath } from "next/cache";
import { runReadinessAs } from "@/lib/readiness/run-readiness";
import { runAction, type ActionResult } from "../../_lib/run-action";

export async function runReadinessAction(_previous: ActionResult | null, _form: FormData): Promise<ActionResult> {
  void _form;
  return runAction("readiness.run", async (actor) => {
    const result = await runReadinessAs({ actor });
    revalidatePath("/readiness");
    revalidatePath("/overview");
    const failed = result.steps.filter((s) => !s.passed);
    return failed.length === 0
      ? `Ready for retries: all ${result.steps.length} steps passed (run ${result.id}).`
      : `Not ready for retries: ${failed.length} of ${result.steps.length} steps failed (run ${result.id}). See what to fix below.`;
  });
}
