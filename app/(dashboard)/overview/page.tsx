import { Suspense } from "react";
import { OutcomeChart } from "@/components/outcome-chart";
import { Card, Stat } from "@/components/ui/card";
import { boundedCountIsZero, formatBoundedCount, formatNumber, formatPercent } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import type { Actor } from "@/lib/auth/actor";
import { getOverview } from "@/lib/overview/get-overview";
import { requirePageActor } from "../../_lib/session";
import { SequenceGapsCard } from "../_components/sequence-gaps-card";
import { OpenAlertsLine } from "./open-alerts-line";
import { ReadinessLine } from "./readiness-line";

export const metadata = { title: "Overview · Keyhook" };

export default async function OverviewPage() {
  const actor = await requirePageActor("overview.view");
  return (
    <>
      <PageHeader
        title="Overview"
        description={actor.tenantId ? `District ${actor.tenantId}, today (UTC).` : "All districts, today (UTC)."}
      />
      {/* Sections that read in parallel (each its own Suspense), not one after another. */}
      <div className="space-y-6">
        <Suspense fallback={null}>
          <OpenAlertsLine actor={actor} />
        </Suspense>
        <Suspense fallback={null}>
          <ReadinessLine actor={actor} />
        </Suspense>
        <Suspense fallback={<Skeleton label="Loading the overview…" />}>
          <OverviewNumbers actor={actor} />
        </Suspense>
        <Suspense fallback={null}>
          <SequenceGapsCard actor={actor} showDistrict={!actor.tenantId} />
        </Suspense>
      </div>
    </>
  );
}

async function OverviewNumbers({ actor }: { actor: Actor }) {
  const overview = await getOverview({ actor });
  const outcomes = ["applied", "stale", "quarantined", "ignored"] as const;
  return (
    <div className="space-y-6">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        {outcomes.map((outcome) => (
          <Stat key={outcome} label={`${outcome} today`} value={formatNumber(overview.outcomesToday[outcome] ?? 0)} />
        ))}
        <Stat
          label="Duplicates absorbed today"
          value={formatNumber(overview.duplicatesToday)}
          hint="Redeliveries answered without a second change"
        />
        <Stat
          label="In quarantine"
          value={formatBoundedCount(overview.quarantineOpen)}
          tone={boundedCountIsZero(overview.quarantineOpen) ? "default" : "warn"}
          hint={
            overview.quarantineOpen.exact
              ? "Events waiting for a human"
              : `Estimated: more than ${formatNumber(overview.quarantineOpen.atLeast - 1)} events wait for a human`
          }
        />
        <Stat
          label="Active keys"
          value={formatNumber(overview.activeKeys)}
          hint={overview.openAlerts ? `${overview.openAlerts} superseded, never revoked` : undefined}
          tone={overview.openAlerts ? "warn" : "default"}
        />
        <Stat label="Ledger size" value={formatNumber(overview.ledgerRows)} hint="Claims kept for deduplication" />
        <Stat
          label="Delivery success today"
          value={formatPercent(overview.deliverySuccessRate)}
          hint={`${formatNumber(overview.deliveriesToday)} deliveries answered`}
        />
      </div>
      <Card title="Deliveries by outcome, last 14 days (UTC)">
        <OutcomeChart chart={overview.chart} />
      </Card>
    </div>
  );
}
