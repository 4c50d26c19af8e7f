// The shape of the Overview chart, apart from the query that fills it (get-overview.ts), so the
// chart component can import it without pulling the database client into its module graph.
import { INGEST_OUTCOMES } from "../../core/vocabulary";

/** What a delivery came to: an ingest outcome, or "rejected" (any non-2xx answer). */
export const CHART_OUTCOMES = [...INGEST_OUTCOMES, "rejected"] as const;
export type ChartOutcome = (typeof CHART_OUTCOMES)[number];

/** One UTC day of the chart: how many deliveries ended in each outcome. */
export type ChartDay = { day: string; counts: Record<ChartOutcome, number> };
