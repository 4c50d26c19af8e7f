import { Suspense } from "react";
import { ActionForm } from "@/components/action-form";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { can } from "@/lib/core/auth/permissions";
import { CANARY_TENANT_ID } from "@/lib/core/tenancy/canary";
import { listReadinessRuns, type StoredReadinessRun } from "@/lib/views/readiness/get-readiness";
import { requirePageActor } from "../../_lib/session";
import { runReadinessAction } from "./actions";

export const metadata = { title: "Retry readiness · Keyhook" };

export default async function ReadinessPage() {
  const actor = await requirePageActor("readiness.view");
  return (
    <>
      <PageHeader
        title="Retry readiness"
        description="Proves, against this running system, that it is safe to keep the provider's retries on: a retried event changes state once, a failure is never reported as success, the provider's history matches ours, and claims outlive every retry."
      />
      <Suspense fallback={<Skeleton label="Loading readiness runs…" />}>
        <ReadinessRuns actor={actor} />
      </Suspense>
    </>
  );
}

async function ReadinessRuns({ actor }: { actor: Actor }) {
  const runs = await listReadinessRuns({ actor, limit: 20 });
  const latest = runs.find((run) => run.finishedAt !== null) ?? null;
  return (
    <div className="space-y-6">
      <Card title="Run the check">
        <p className="mb-3 text-sm text-slate-700">
          Every step sends real deliveries to the canary district <span className="font-mono">{CANARY_TENANT_ID}</span>,
          which no district list, count or export shows. It takes a few seconds (the forced failure holds the
          canary&apos;s row lock past INGEST_TX_TIMEOUT_MS). Operators and CI run the same check with{" "}
          <span className="font-mono">npm run readiness</span>.
        </p>
        {can(actor, "readiness.run") ? (
          <ActionForm action={runReadinessAction} submitLabel="Run the readiness check now" />
        ) : null}
      </Card>
      {latest ? (
        <LatestRun run={latest} />
      ) : (
        <EmptyState title="No readiness run yet">Run the check to see whether retries are safe to keep on.</EmptyState>
      )}
      {runs.length > 0 ? <RunHistory runs={runs} /> : null}
    </div>
  );
}

function LatestRun({ run }: { run: StoredReadinessRun }) {
  return (
    <Card
      title={
        <span className="flex flex-wrap items-center gap-2">
          Last run {run.passed ? <Badge tone="green">ready for retries</Badge> : <Badge tone="red">not ready</Badge>}
          <span className="text-xs font-normal text-slate-500">
            {formatTime(run.finishedAt)} · {run.actor} · {run.trigger}
          </span>
        </span>
      }
    >
      <ol className="divide-y divide-slate-100">
        {run.steps.map((step) => (
          <li key={step.id} className="py-3" data-testid={`readiness-step-${step.id}`}>
            <div className="flex items-start gap-2">
              {step.passed ? (
                <Badge tone={step.warning ? "amber" : "green"}>{step.warning ? "warning" : "pass"}</Badge>
              ) : (
                <Badge tone="red">fail</Badge>
              )}
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium text-slate-800">{step.title}</p>
                <p className="break-words text-sm text-slate-600">{step.summary}</p>
                {step.fix ? (
                  <p className="mt-1 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
                    <strong>{step.warning ? "Advice:" : "What to fix:"}</strong> {step.fix}
                  </p>
                ) : null}
                <details className="mt-1 text-xs text-slate-500">
                  <summary className="cursor-pointer">Evidence ({(step.durationMs / 1000).toFixed(1)} s)</summary>
                  <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono">
                    {JSON.stringify(step.evidence, null, 2)}
                  </pre>
                </details>
              </div>
            </div>
          </li>
        ))}
      </ol>
    </Card>
  );
}

function RunHistory({ runs }: { runs: StoredReadinessRun[] }) {
  return (
    <Card title="Recent runs">
      <Table label="Recent readiness runs">
        <thead>
          <tr>
            <Th>Started</Th>
            <Th>By</Th>
            <Th>From</Th>
            <Th>Result</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {runs.map((run) => (
            <tr key={run.id}>
              <Td>{formatTime(run.startedAt)}</Td>
              <Td className="break-all">{run.actor}</Td>
              <Td>{run.trigger}</Td>
              <Td>
                {run.finishedAt === null ? (
                  <Badge tone="slate">running</Badge>
                ) : run.passed ? (
                  <Badge tone="green">passed</Badge>
                ) : (
                  <span className="text-sm">
                    <Badge tone="red">failed</Badge>{" "}
                    {run.steps
                      .filter((s) => !s.passed)
                      .map((s) => s.id.replace(/_/g, " "))
                      .join(", ")}
                  </span>
                )}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}
