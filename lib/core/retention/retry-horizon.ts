// The provider retry horizon the retention rule may use, and why: never below the configured
// PROVIDER_RETRY_HORIZON_HOURS nor below the longest retry the provider's own history shows
// (lib/operations/provider/observe-retries.ts records it). A horizon declared on the Retention form may be
// longer, never shorter. Pure: the form, the purge's guard and the readiness step all call it
// through getRetentionSettings, so the three can never disagree on the bound.

export type ObservedRetry = {
  /** From an event's first attempt to its last scheduled retry (done or announced), in ms. */
  spanMs: number;
  eventId: string;
  firstAttemptAt: Date;
  lastRetryAt: Date;
  observedAt: Date;
};

export type RetryHorizonFloor = {
  /** Whole hours, rounded up: the least horizon the rule accepts. */
  hours: number;
  bound: "configured" | "provider_history";
  configuredHours: number;
  observed: ObservedRetry | null;
  /** For a person: which bound applies and what the other one is ("PROVIDER_RETRY_HORIZON_HOURS is 28 h; …"). */
  explanation: string;
};

const HOUR_MS = 3_600_000;

export function retryHorizonFloor(input: {
  configuredHours: number;
  observed: ObservedRetry | null;
}): RetryHorizonFloor {
  const { configuredHours, observed } = input;
  const observedHours = observed ? Math.ceil(observed.spanMs / HOUR_MS) : 0;
  const seen = observed
    ? `the longest retry the provider's history shows is ${(observed.spanMs / HOUR_MS).toFixed(1)} h (event ${observed.eventId})`
    : "the provider's history shows no retry yet";
  if (observedHours > configuredHours) {
    return {
      hours: observedHours,
      bound: "provider_history",
      configuredHours,
      observed,
      explanation: `${seen}, longer than PROVIDER_RETRY_HORIZON_HOURS (${configuredHours} h)`,
    };
  }
  return {
    hours: configuredHours,
    bound: "configured",
    configuredHours,
    observed,
    explanation: `PROVIDER_RETRY_HORIZON_HOURS is ${configuredHours} h; ${seen}`,
  };
}
