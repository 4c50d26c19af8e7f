import Link from "next/link";
import { cache, Suspense } from "react";
import { OutcomeChart } from "@/components/outcome-chart";
import { Card, Stat } from "@/components/ui/card";
import {
  boundedCountIsZero,
  formatBoundedCount,
  formatNumber,
  formatPercent,
  formatTime,
  plural,
} from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { askPlatformAdmin } from "@/components/ui/role-names";
import { Skeleton } from "@/components/ui/skeleton";
import type { Actor } from "@/lib/core/auth/actor";
import { getOverview, type Overview } from "@/lib/views/overview/get-overview";
import { requirePageActor } from "../../_lib/session";
import { SequenceGapsCard } from "../_components/sequence-gaps-card";
import { LatestEvents } from "./latest-events";
import { OpenAlertsLine } from "./open-alerts-line";
import { ReadinessLine } from "./readiness-line";
import { LEDGER_OUTCOMES } from "@/lib/core/vocabulary";

export const metadata = { title: "Overview · Keyhook" };

export default async function OverviewPage() {
  const actor = await requirePageActor("overview.view");
  return (
    <>
      <PageHeader
        title="Overview"
        description={
          actor.tenantId ? (
            <Suspense fallback={`Your district, today (UTC).`}>
              <DistrictName actor={actor} />
            </Suspense>
          ) : (
            "All districts, today (UTC)."
          )
        }
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

// getOverview is one read per render: the header's district name and the numbers share it.
const overviewOf = cache((actor: Actor) => getOverview({ actor }));

async function DistrictName({ actor }: { actor: Actor }) {
  const { district } = await overviewOf(actor);
  return <>{district?.name ? `${district.name} (${district.id})` : actor.tenantId}, today (UTC).</>;
}

async function OverviewNumbers({ actor }: { actor: Actor }) {
  const overview = await overviewOf(actor);
  return (
    <div className="space-y-6">
      {overview.district ? (
        <DistrictNumbers overview={overview} district={overview.district} />
      ) : (
        <StaffNumbers overview={overview} />
      )}
      {/* Above the chart: where a newcomer sees the simulator's changes arrive. */}
      <Suspense fallback={null}>
        <LatestEvents actor={actor} />
      </Suspense>
      <Card title="Deliveries by outcome, last 14 days (UTC)">
        <OutcomeChart chart={overview.chart} />
      </Card>
    </div>
  );
}

function StaffNumbers({ overview }: { overview: Overview }) {
  return (
    <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
      {LEDGER_OUTCOMES.map((outcome) => (
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
        href="/quarantine"
      />
      <Stat
        label="Active keys"
        value={formatNumber(overview.activeKeys)}
        hint={
          overview.supersededKeys ? `${plural(overview.supersededKeys, "key")} superseded, never revoked` : undefined
        }
        tone={overview.supersededKeys ? "warn" : "default"}
      />
      <Stat label="Ledger size" value={formatNumber(overview.ledgerRows)} hint="Claims kept for deduplication" />
      <Stat
        label="Delivery success today"
        value={formatPercent(overview.deliverySuccessRate)}
        hint={`${plural(overview.deliveriesToday, "delivery", "deliveries")} answered`}
      />
    </div>
  );
}

// A district admin comes for their key: which one is live, and whether anything about it needs
// them. In their words: key changes, not claims and duplicates.
function DistrictNumbers({ overview, district }: { overview: Overview; district: NonNullable<Overview["district"]> }) {
  const districtHref = `/districts/${encodeURIComponent(district.id)}`;
  const key = district.activeKey;
  const changesToday = overview.outcomesToday.applied ?? 0;
  return (
    <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
      <Link
        href={districtHref}
        className="block rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-slate-400 md:col-span-3"
        data-testid="your-key"
      >
        <div className="text-xs font-medium uppercase tracking-wide text-slate-500">Your key</div>
        {key ? (
          <div className="mt-1 space-y-1 text-sm">
            <div className="break-all font-mono text-base font-semibold">{key.id}</div>
            <div className="text-slate-600">
              {key.prefix ? <span className="font-mono">{key.prefix}… · </span> : null}
              {key.scopes.length ? key.scopes.join(", ") : "no scopes"} · active since {formatTime(key.activatedAt)}
            </div>
          </div>
        ) : (
          <div className="mt-1 text-sm font-medium text-amber-800" data-testid="no-active-key">
            No active key: only a platform admin can issue one; {askPlatformAdmin(district.platformAdmins)}.
          </div>
        )}
      </Link>
      <Stat
        label="Keys possibly live"
        value={formatNumber(overview.supersededKeys)}
        tone={overview.supersededKeys ? "warn" : "default"}
        hint={
          overview.supersededKeys
            ? "Superseded but never revoked: revoke them"
            : key
              ? "None besides your key"
              : "None: this district has no working key"
        }
        href={districtHref}
      />
      <Stat
        label="Key changes today"
        value={formatNumber(changesToday)}
        hint="Issued, rotated or revoked, as the provider told us"
        href={`/ledger?outcome=applied`}
      />
      <Stat
        label="Events in quarantine"
        value={formatBoundedCount(overview.quarantineOpen)}
        tone={boundedCountIsZero(overview.quarantineOpen) ? "default" : "warn"}
        hint="Held back for our support team to check"
        href="/ledger?outcome=quarantined"
      />
    </div>
  );
}
