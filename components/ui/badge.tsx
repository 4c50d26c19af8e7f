import type { IngestOutcome } from "@/lib/core/vocabulary";

const tones = {
  green: "bg-emerald-100 text-emerald-800",
  blue: "bg-sky-100 text-sky-800",
  amber: "bg-amber-100 text-amber-900",
  red: "bg-rose-100 text-rose-800",
  slate: "bg-slate-100 text-slate-700",
} as const;

export function Badge({ tone = "slate", children }: { tone?: keyof typeof tones; children: React.ReactNode }) {
  return (
    <span className={`inline-flex items-center rounded px-2 py-0.5 text-xs font-medium ${tones[tone]}`}>
      {children}
    </span>
  );
}

// Every outcome the ledger, a delivery or a replay can have, each with its tone.
const outcomeTones = {
  applied: "green",
  duplicate: "blue",
  stale: "slate",
  ignored: "slate",
  quarantined: "amber",
  rejected: "red",
  unavailable: "red",
} as const satisfies Record<IngestOutcome | "rejected" | "unavailable", keyof typeof tones>;

export function OutcomeBadge({ outcome }: { outcome: string | null }) {
  const value = outcome ?? "rejected";
  return <Badge tone={outcomeTones[value as keyof typeof outcomeTones] ?? "slate"}>{value}</Badge>;
}

export function HttpStatusBadge({ status }: { status: number | null }) {
  if (status === null) return <Badge tone="red">no answer</Badge>;
  return <Badge tone={status < 300 ? "green" : status < 500 ? "amber" : "red"}>{status}</Badge>;
}
