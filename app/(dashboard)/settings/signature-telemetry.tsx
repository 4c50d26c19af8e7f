// Settings: per signing secret, what it verified lately and whether it can be retired; and how far
// the provider's clock is from ours, against the timestamp tolerance.
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/empty-state";
import { formatNumber, formatTime, plural } from "@/components/ui/format";
import { Table, Td, Th } from "@/components/ui/table";
import type { Actor } from "@/lib/core/auth/actor";
import { getSignatureTelemetryFor, SKEW_WARNING_SHARE } from "@/lib/views/settings/secret-telemetry";

const seconds = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`);

export async function SignatureTelemetryCard({ actor }: { actor: Actor }) {
  const telemetry = await getSignatureTelemetryFor({ actor });
  const { skew } = telemetry;
  return (
    <Card title="Secret usage and clock skew">
      {telemetry.skewWarning ? (
        <Notice tone="warn">
          <strong>Clock skew is close to the tolerance:</strong> p99 {seconds(skew.p99Ms)} of ±
          {telemetry.toleranceSeconds} s over the last 24 h
          {skew.expired24h > 0 ? `, ${plural(skew.expired24h, "delivery", "deliveries")} refused as expired` : ""}.
          Check the clocks (NTP) here and at the provider, or raise WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS.
        </Notice>
      ) : null}
      <p className="mb-3 text-sm text-slate-700">
        Which secret (<code>v1</code>, WEBHOOK_SECRETS) or public key (<code>v1a</code>, WEBHOOK_PUBLIC_KEYS) verified
        each delivery, from the receipts. A secret or key is <strong>safe to retire</strong> once another one has taken
        over and it has verified nothing for longer than the provider&apos;s retry horizon (
        {telemetry.retryHorizonHours} h): no retry signed with it can still arrive.
      </p>
      <Table label="Secret usage">
        <thead>
          <tr>
            <Th>Fingerprint</Th>
            <Th>Kind</Th>
            <Th>Verified, 24 h</Th>
            <Th>Verified, 7 d</Th>
            <Th>Last verified</Th>
            <Th>Skew p50 / p99 (24 h)</Th>
            <Th>Retire?</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {telemetry.secrets.map((secret, index) => (
            <tr key={`${index}-${secret.fingerprint}`} data-testid={`secret-usage-${secret.fingerprint}`}>
              <Td className="font-mono">{secret.fingerprint}</Td>
              <Td className="whitespace-nowrap">{secret.version === "v1a" ? "v1a public key" : "v1 secret"}</Td>
              <Td className="tabular-nums">{formatNumber(secret.verified24h)}</Td>
              <Td className="tabular-nums">{formatNumber(secret.verified7d)}</Td>
              <Td>{secret.lastVerifiedAt ? formatTime(secret.lastVerifiedAt) : "never"}</Td>
              <Td className="tabular-nums">
                {seconds(secret.skewP50Ms)} / {seconds(secret.skewP99Ms)}
              </Td>
              <Td>
                {secret.safeToRetire ? (
                  <Badge tone="green">safe to retire</Badge>
                ) : secret.lastVerifiedAt === null ? (
                  <Badge tone="slate">not used yet</Badge>
                ) : (
                  <Badge tone="blue">in use</Badge>
                )}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <p className="mt-3 text-sm text-slate-600">
        All deliveries with a timestamp, last 24 h: skew p50 {seconds(skew.p50Ms)}, p99 {seconds(skew.p99Ms)} over{" "}
        {plural(skew.samples24h, "delivery", "deliveries")}; {formatNumber(skew.expired24h)} refused as outside the
        tolerance of ±{telemetry.toleranceSeconds} s (WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS). A warning shows from{" "}
        {Math.round(SKEW_WARNING_SHARE * 100)} % of the tolerance.
      </p>
    </Card>
  );
}
