import { Badge } from "@/components/ui/badge";
import { formatTime } from "@/components/ui/format";
import { ALERT_KINDS } from "@/lib/operations/alerts/alert-kinds";
import type { AlertRow } from "@/lib/views/alerts/list-alerts";

const stateTones = { open: "red", acknowledged: "amber", resolved: "green" } as const;

export function AlertStateBadge({ state }: { state: string }) {
  return <Badge tone={stateTones[state as keyof typeof stateTones] ?? "slate"}>{state}</Badge>;
}

export function kindLabel(kind: string): string {
  return (ALERT_KINDS as Record<string, string>)[kind] ?? kind;
}

export function WhoActed({ alert }: { alert: AlertRow }) {
  if (alert.resolvedBy)
    return (
      <span className="break-words">
        resolved by {alert.resolvedBy}, {formatTime(alert.resolvedAt)}
      </span>
    );
  if (alert.acknowledgedBy)
    return (
      <span className="break-words">
        acknowledged by {alert.acknowledgedBy}, {formatTime(alert.acknowledgedAt)}
      </span>
    );
  return <span className="text-slate-500">nobody yet</span>;
}
