// Open sequence gaps: events the provider numbered that never reached us. Shown on the district
// page (one district) and the overview (all the actor may see).
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { formatTime } from "@/components/ui/format";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { listOpenGaps } from "@/lib/views/overview/list-gaps";

export async function SequenceGapsCard({
  actor,
  tenantId,
  showDistrict,
}: {
  actor: Actor;
  tenantId?: string;
  showDistrict: boolean;
}) {
  const { gaps, total } = await listOpenGaps({ actor, tenantId, limit: 20 });
  return (
    <Card title={`Missing events (sequence gaps)${total > 0 ? `: ${total} open` : ""}`}>
      {total === 0 ? (
        <p className="text-sm text-slate-600" data-testid="no-gaps">
          No gaps: every sequence up to the highest one seen has arrived.
        </p>
      ) : (
        <>
          <p className="mb-3 text-sm text-slate-700">
            The provider numbers each district&apos;s events without holes, so these never arrived. Its retries usually
            fill a gap by themselves; one still open past the retry horizon will not be filled: ask the provider for
            those events or replay them.
          </p>
          <Table label="Open sequence gaps">
            <thead>
              <tr>
                {showDistrict ? <Th>District</Th> : null}
                <Th>Missing sequences</Th>
                <Th>First noticed</Th>
                <Th>State</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {gaps.map((gap) => (
                <tr key={gap.id}>
                  {showDistrict ? (
                    <Td>
                      <Link className="underline" href={`/districts/${encodeURIComponent(gap.tenantId)}`}>
                        {gap.tenantId}
                      </Link>
                    </Td>
                  ) : null}
                  <Td className="font-mono">
                    {gap.fromSequence === gap.toSequence ? gap.fromSequence : `${gap.fromSequence}–${gap.toSequence}`}
                    <span className="ml-1 text-xs text-slate-500">
                      ({gap.missing} event{gap.missing === 1 ? "" : "s"})
                    </span>
                  </Td>
                  <Td>{formatTime(gap.firstNoticedAt)}</Td>
                  <Td>
                    {gap.pastHorizon ? (
                      <Badge tone="red">past the retry horizon: needs a human</Badge>
                    ) : (
                      <Badge tone="amber">waiting for retries</Badge>
                    )}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          {total > gaps.length ? (
            <p className="mt-2 text-xs text-slate-500">
              Showing the {gaps.length} oldest of {total}.
            </p>
          ) : null}
        </>
      )}
    </Card>
  );
}
