import "server-only";
// Step: an acknowledged change survives a failover. We answer 200 once the claim and the key
// change commit, and the provider never sends that event again; if the commit was only on the
// primary (asynchronous replication) and a standby is promoted, the change is gone for good.
// So we read the database's own state: which standbys must confirm a commit
// (synchronous_standby_names), which of them are connected and confirming (pg_stat_replication's
// sync_state), and whether the ingest transaction waits for them (its synchronous_commit).
//
// A single server with no standby at all is a warning, not a failure: no failover can happen, so
// none can lose an acknowledged change (losing the server itself is a backup question), and a
// managed service may replicate below PostgreSQL where we cannot see it. Failing every such
// deployment would cry wolf. A standby that is asynchronous, or commits that do not wait, fail.
import { stepReporter, type ReadinessContext, type StepResult } from "./types";

const TITLE = "An acknowledged change survives a failover";
/** Levels at which COMMIT returns only once a synchronous standby has the change. */
const WAITING_LEVELS = new Set(["on", "remote_write", "remote_apply"]);

type Settings = {
  in_recovery: boolean;
  standby_names: string;
  session_commit: string;
  ingest_config: string[] | null;
  sees_standbys: boolean;
};
type Standby = { name: string; state: string | null; sync_state: string | null; behind_bytes: bigint | null };

export async function checkFailoverDurability(context: ReadinessContext): Promise<StepResult> {
  const evidence: Record<string, unknown> = {};
  const done = stepReporter("failover_durability", TITLE, evidence);
  // On the app's own pool: a role or database default of synchronous_commit applies here as it
  // does to the ingest transaction; a setting on the ingest function itself would override both.
  const [settings] = await context.db.$queryRaw<Settings[]>`
    SELECT pg_is_in_recovery() AS in_recovery,
           current_setting('synchronous_standby_names') AS standby_names,
           current_setting('synchronous_commit') AS session_commit,
           (SELECT proconfig FROM pg_proc WHERE proname = 'keyhook_ingest' LIMIT 1) AS ingest_config,
           pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS sees_standbys`;
  if (!settings) throw new Error("the database returned no settings");
  const standbys = settings.in_recovery
    ? []
    : await context.db.$queryRaw<Standby[]>`
        SELECT application_name AS name, state, sync_state,
               (pg_current_wal_lsn() - replay_lsn)::bigint AS behind_bytes
          FROM pg_stat_replication ORDER BY application_name`;
  const functionCommit = settings.ingest_config
    ?.find((item) => item.startsWith("synchronous_commit="))
    ?.slice("synchronous_commit=".length);
  const ingestCommit = functionCommit ?? settings.session_commit;
  const confirming = standbys.filter((s) => s.sync_state === "sync" || s.sync_state === "quorum");
  Object.assign(evidence, {
    synchronous_standby_names: settings.standby_names,
    ingest_synchronous_commit: ingestCommit,
    ingest_synchronous_commit_from: functionCommit ? "the keyhook_ingest function" : "the app's session",
    standbys: standbys.map((s) => ({
      name: s.name,
      state: s.state,
      sync_state: s.sync_state,
      behind_bytes: s.behind_bytes === null ? null : Number(s.behind_bytes),
    })),
  });

  if (settings.in_recovery) {
    return done(
      false,
      "DATABASE_URL reaches a standby (read-only), not the primary",
      "Point DATABASE_URL at the primary the way your failover engine documents it (with Patroni: HAProxy's primary port checking /primary), never at one node.",
    );
  }
  if (standbys.length === 0 && settings.standby_names.trim() === "") {
    return {
      ...done(
        true,
        "a single server: no standby is attached, so no failover can lose an acknowledged change",
        "Losing this server loses what changed since its last backup, and the provider will not resend it. To survive that, run a synchronous standby under a failover engine (docs/failover.md), or use a managed service that replicates synchronously (its standby is invisible from here).",
      ),
      warning: true,
    };
  }
  if (settings.standby_names.trim() === "") {
    const names = standbys.map((s) => s.name).join(", ");
    return done(
      false,
      `standby ${names} replicates asynchronously: a failover to it can lose events we already answered 200`,
      "Make the standby synchronous: with Patroni set synchronous_mode: true and synchronous_mode_strict: true (patronictl edit-config); by hand, set synchronous_standby_names. See docs/failover.md.",
    );
  }
  if (!WAITING_LEVELS.has(ingestCommit)) {
    return done(
      false,
      `the ingest transaction runs with synchronous_commit = ${ingestCommit}: it answers 200 before any standby has the change`,
      functionCommit
        ? "Remove synchronous_commit from the keyhook_ingest function (ALTER FUNCTION keyhook_ingest RESET synchronous_commit)."
        : "Reset synchronous_commit to on for the app's role and database (ALTER ROLE … RESET synchronous_commit; ALTER DATABASE … RESET synchronous_commit).",
    );
  }
  if (standbys.length > 0 && standbys.every((s) => s.sync_state === null) && !settings.sees_standbys) {
    return done(
      false,
      "cannot see whether the standbys confirm commits: the app's database role may not read pg_stat_replication",
      "Grant the role pg_monitor (GRANT pg_monitor TO <app role>) so this check can read the standbys' state, then run it again.",
    );
  }
  if (confirming.length === 0) {
    return done(
      false,
      `synchronous_standby_names is ${settings.standby_names}, but no standby is confirming commits: ingest waits, then answers 503`,
      "Bring a standby back (or add one): with Patroni, `patronictl list` shows which member should be the sync standby and why it is not streaming.",
    );
  }
  return done(
    true,
    `commits wait for ${confirming.map((s) => `${s.name} (${s.sync_state})`).join(", ")}; the ingest transaction runs with synchronous_commit = ${ingestCommit}`,
    null,
  );
}
