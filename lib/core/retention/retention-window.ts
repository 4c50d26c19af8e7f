// The retention window rule (docs/design.md, invariant 6), the one home of it: a claim must
// outlive every retry of its delivery, so the window is longer than the provider's retry horizon
// plus a margin, and a stored body never outlives its claim. Pure: the settings reader, the
// settings form, the purge and the readiness check all pass in the numbers they hold (the horizon
// included, however the caller chose it).

type RetentionWindow = {
  retentionDays: number;
  retryHorizonHours: number;
  marginHours: number;
  payloadRetentionDays?: number;
};

/** The window in hours, and the hours it must be longer than. */
export function retentionWindowHours(
  window: Pick<RetentionWindow, "retentionDays" | "retryHorizonHours" | "marginHours">,
) {
  return { windowHours: window.retentionDays * 24, neededHours: window.retryHorizonHours + window.marginHours };
}

type RetentionWindowProblem = {
  /** The number to change: the window itself, or the payload retention. */
  field: "retentionDays" | "payloadRetentionDays";
  /** Worded for a person: a form error, a startup error, a readiness finding. */
  message: string;
};

/** What is wrong with a combination, or null when a late retry still finds its claim. */
export function retentionWindowProblem(window: RetentionWindow): RetentionWindowProblem | null {
  const { windowHours, neededHours } = retentionWindowHours(window);
  if (windowHours <= neededHours) {
    return {
      field: "retentionDays",
      message:
        `retention window ${window.retentionDays} days (${windowHours} h) must be longer than the provider retry horizon ` +
        `${window.retryHorizonHours} h + margin ${window.marginHours} h = ${neededHours} h, or a late retry would be applied twice`,
    };
  }
  if (window.payloadRetentionDays !== undefined && window.payloadRetentionDays > window.retentionDays) {
    return {
      field: "payloadRetentionDays",
      message: `payload retention ${window.payloadRetentionDays} days must not exceed the retention window ${window.retentionDays} days`,
    };
  }
  return null;
}
