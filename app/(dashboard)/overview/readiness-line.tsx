// The overview's one line about the retry-readiness check (staff only).
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { formatTime } from "@/components/ui/format";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { getReadinessSummary } from "@/lib/views/readiness/get-readiness";

export async function ReadinessLine({ actor }: { actor: Actor }) {
  if (!can(actor, "readiness.view")) return null;
  const { lastRun, missing } = await getReadinessSummary({ actor });
  return (
    <div
      className="flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm"
      data-testid="readiness-line"
    >
      <span className="font-medium text-slate-700">Retries:</span>
      {lastRun === null ? (
        <>
          <Badge tone="amber">not checked yet</Badge>
          <span className="text-slate-600">no readiness run recorded.</span>
        </>
      ) : lastRun.passed ? (
        <Badge tone="green">ready for retries</Badge>
      ) : (
        <>
          <Badge tone="red">not ready</Badge>
          <span className="text-slate-700">missing: {missing.join("; ")}</span>
        </>
      )}
      {lastRun ? <span className="text-xs text-slate-500">last run {formatTime(lastRun.finishedAt)}</span> : null}
      <Link className="ml-auto text-sm underline" href="/readiness">
        {lastRun ? "Details" : "Run the check"}
      </Link>
    </div>
  );
}
