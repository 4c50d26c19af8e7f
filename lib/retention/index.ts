import "server-only";
// The retention API the dashboard, the worker, the cron route and `npm run purge` use.
export { getRetentionSettings, updateRetentionSettings } from "./settings";
export { retentionWindowProblem } from "./retention-window";
export type { RetentionSettings, UpdateRetentionSettingsInput } from "./settings";
export { getRetentionStats } from "./retention-stats";
export type { RetentionStats } from "./retention-stats";
export { listPurgeRuns } from "./purge-runs";
export type { PurgeRunSummary, PurgeRunStatus, PurgeTrigger } from "./purge-runs";
export { runPurge } from "./run-purge";
export type { RunPurgeOptions, PurgeBatchReport } from "./run-purge";
export { runScheduledPurge, ScheduledPurgeFailed } from "./scheduled-purge";
export type { ScheduledPurgeResult } from "./scheduled-purge";
