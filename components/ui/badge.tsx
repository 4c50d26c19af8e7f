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

const outcomeTones: Record<string, keyof typeof tones> = {
  applied: "green",
  duplicate: "blue",
  stale: "slate",
  ignored: "slate",
  quarantined: "amber",
  rejected: "red",
  failed: "red",
};

export function OutcomeBadge({ outcome }: { outcome: string | null }) {
  const value = outcome ?? "rejected";
  return <Badge tone={outcomeTones[value] ?? "slate"}>{value}</Badge>;
}

export function HttpStatusBadge({ status }: { status: number | null }) {
  if (status === null) return <Badge tone="red">no answer</Badge>;
  return <Badge tone={status < 300 ? "green" : status < 500 ? "amber" : "red"}>{status}</Badge>;
}
