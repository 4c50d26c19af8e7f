// Outcomes over time as stacked bars: plain SVG rendered on the server, readable without script.
import { CHART_OUTCOMES, type ChartDay, type ChartOutcome } from "@/lib/overview/outcome-chart-data";

const colors: Record<ChartOutcome, string> = {
  applied: "#059669",
  duplicate: "#0284c7",
  stale: "#94a3b8",
  quarantined: "#d97706",
  ignored: "#cbd5e1",
  rejected: "#e11d48",
};

export function OutcomeChart({ chart }: { chart: ChartDay[] }) {
  const totals = chart.map((d) => CHART_OUTCOMES.reduce((sum, o) => sum + d.counts[o], 0));
  const max = Math.max(1, ...totals);
  const width = 700;
  const height = 180;
  const barWidth = width / chart.length;
  return (
    <figure>
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        className="h-auto w-full"
        role="img"
        aria-label="Deliveries per day by outcome"
      >
        {chart.map((day, i) => {
          let y = height;
          return (
            <g key={day.day}>
              {CHART_OUTCOMES.map((outcome) => {
                const h = (day.counts[outcome] / max) * height;
                y -= h;
                return h > 0 ? (
                  <rect key={outcome} x={i * barWidth + 2} y={y} width={barWidth - 4} height={h} fill={colors[outcome]}>
                    <title>{`${day.day}: ${day.counts[outcome]} ${outcome}`}</title>
                  </rect>
                ) : null;
              })}
              {i % Math.ceil(chart.length / 7) === 0 ? (
                <text x={i * barWidth + barWidth / 2} y={height + 14} fontSize="10" textAnchor="middle" fill="#64748b">
                  {day.day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-2 flex flex-wrap gap-3 text-xs text-slate-600">
        {CHART_OUTCOMES.map((outcome) => (
          <span key={outcome} className="inline-flex items-center gap-1">
            {/* A fill, not a style attribute: the page's Content-Security-Policy allows no inline styles. */}
            <svg aria-hidden className="h-2 w-2" viewBox="0 0 2 2">
              <rect width="2" height="2" rx="0.5" fill={colors[outcome]} />
            </svg>
            {outcome}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
