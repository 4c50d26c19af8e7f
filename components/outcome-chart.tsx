// Outcomes over time as stacked bars, rendered on the server and readable without script. The
// bars are an SVG stretched to the plot; the axes are HTML text at the page's font size, so they
// stay readable on a phone (an SVG's own text shrinks with it). A y-axis of four equal steps of a
// round number, gridlines at each step, one date label per bar where they fit.
import { CHART_OUTCOMES, type ChartDay, type ChartOutcome } from "@/lib/views/overview/outcome-chart-data";
import { formatNumber } from "./ui/format";

const colors: Record<ChartOutcome, string> = {
  applied: "#059669",
  duplicate: "#0284c7",
  stale: "#94a3b8",
  quarantined: "#d97706",
  ignored: "#cbd5e1",
  rejected: "#e11d48",
};

// Where each of the five tick labels and gridlines sits, from the top of the plot down.
const TICK_POSITIONS = ["top-0", "top-1/4", "top-1/2", "top-3/4", "top-full"] as const;

/** A whole step at or above `value`: any whole number up to 10, then 1, 2, 2.5 or 5 × 10^n. */
function roundStep(value: number): number {
  if (value <= 10) return Math.max(1, Math.ceil(value));
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((step) => step >= value)!;
}

export function OutcomeChart({ chart }: { chart: ChartDay[] }) {
  const totals = chart.map((d) => CHART_OUTCOMES.reduce((sum, o) => sum + d.counts[o], 0));
  const step = roundStep(Math.max(...totals, 0) / 4);
  const top = step * 4;
  const ticks = [4, 3, 2, 1, 0].map((i) => i * step);
  // A label on every bar where they fit; on a phone every other one (or fewer for long ranges),
  // counted back from today, so today's bar always carries its own date (never only yesterday's).
  const every = { wide: Math.ceil(chart.length / 14), narrow: Math.ceil(chart.length / 7) };
  const total = totals.reduce((a, b) => a + b, 0);
  return (
    <figure>
      <div
        className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-2"
        role="img"
        aria-label={`Deliveries per day by outcome, ${chart[0]?.day ?? ""} to ${chart[chart.length - 1]?.day ?? ""}: ${formatNumber(total)} in all, at most ${formatNumber(Math.max(...totals, 0))} a day`}
      >
        <div className="relative h-48 w-10 text-right text-xs tabular-nums text-slate-600" data-testid="chart-y-axis">
          {ticks.map((tick, i) => (
            <span key={tick} className={`absolute right-0 -translate-y-1/2 leading-none ${TICK_POSITIONS[i]}`}>
              {formatNumber(tick)}
            </span>
          ))}
        </div>
        <div className="relative h-48 border-b border-l border-slate-300">
          {TICK_POSITIONS.slice(0, 4).map((position) => (
            <div key={position} aria-hidden className={`absolute inset-x-0 border-t border-slate-100 ${position}`} />
          ))}
          <svg
            viewBox={`0 0 ${chart.length} ${top}`}
            preserveAspectRatio="none"
            className="absolute inset-0 h-full w-full"
            aria-hidden
          >
            {chart.map((day, i) => {
              let y = top;
              return (
                <g key={day.day}>
                  {CHART_OUTCOMES.map((outcome) => {
                    const h = day.counts[outcome];
                    y -= h;
                    return h > 0 ? (
                      <rect key={outcome} x={i + 0.15} y={y} width={0.7} height={h} fill={colors[outcome]}>
                        <title>{`${day.day}: ${day.counts[outcome]} ${outcome}`}</title>
                      </rect>
                    ) : null;
                  })}
                </g>
              );
            })}
          </svg>
        </div>
        <div />
        <div className="flex pt-1 text-xs text-slate-600" data-testid="chart-x-axis">
          {chart.map((day, i) => (
            <span
              key={day.day}
              className={`min-w-0 flex-1 whitespace-nowrap text-center tabular-nums ${(chart.length - 1 - i) % every.wide ? "invisible" : (chart.length - 1 - i) % every.narrow ? "max-sm:invisible" : ""}`}
            >
              {day.day.slice(5)}
            </span>
          ))}
        </div>
      </div>
      <figcaption className="mt-3 flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-600">
        <span className="w-full sm:w-auto">Deliveries per day (UTC):</span>
        {CHART_OUTCOMES.map((outcome) => (
          <span key={outcome} className="inline-flex items-center gap-1">
            <svg aria-hidden width="8" height="8" className="shrink-0">
              <rect width="8" height="8" rx="1" fill={colors[outcome]} />
            </svg>
            {outcome}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
