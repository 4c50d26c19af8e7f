import "server-only";
// Step: a lost database can be restored. Losing the data (a dropped table, a region gone) loses
// every change acknowledged since the last backup, revokes the provider will never send again
// among them; the way back is a base backup plus the WAL archived since, replayed to a point in
// time (docs/backup.md). So we read PostgreSQL's own archiver (pg_stat_archiver: is the WAL
// leaving the server?) and, where pgBackRest is configured (BACKUP_STANZA), `pgbackrest info`
// (how old is the newest backup?).
//
// No archiving at all is a warning, not a failure, by the reasoning of the single-server failover
// warning: the embedded default and a managed service with its own backups look like that, and a
// check that fails every such deployment cries wolf. Archiving that fails, and a backup older than
// BACKUP_MAX_AGE_HOURS, fail: there a restore would silently lose more than the operator expects.
import { env } from "../../core/config/env";
import { readPgBackRestInfo, type PgBackRestInfo } from "./read-pgbackrest-info";
import { stepReporter, type ReadinessContext, type StepResult } from "./types";

const TITLE = "A lost database can be restored";
const GUIDE = "docs/backup.md";

type Archiver = {
  in_recovery: boolean;
  archive_mode: string;
  /** Null when the role may not read it. */
  archive_command: string | null;
  archive_library: string | null;
  archived_count: bigint;
  last_archived_wal: string | null;
  last_archived_time: Date | null;
  failed_count: bigint;
  last_failed_wal: string | null;
  last_failed_time: Date | null;
  stats_reset: Date | null;
};

type BackupStepOptions = {
  /** Default BACKUP_STANZA; null: pgBackRest is not consulted. */
  stanza?: string | null;
  /** Default BACKUP_MAX_AGE_HOURS. */
  maxAgeHours?: number;
  /** Default: run `pgbackrest info` on this host. */
  readInfo?: (stanza: string) => Promise<PgBackRestInfo>;
};

export async function checkBackups(context: ReadinessContext, options: BackupStepOptions = {}): Promise<StepResult> {
  const evidence: Record<string, unknown> = {};
  const done = stepReporter("backups", TITLE, evidence);
  const stanza = options.stanza === undefined ? (env().BACKUP_STANZA ?? null) : options.stanza;
  const maxAgeHours = options.maxAgeHours ?? env().BACKUP_MAX_AGE_HOURS;
  const now = context.now();

  const archiver = await readArchiver(context.db);
  Object.assign(evidence, archiverEvidence(archiver), { pgbackrest_stanza: stanza, max_backup_age_hours: maxAgeHours });
  const notArchiving = archivingVerdict(archiver, done);
  if (notArchiving) return notArchiving;
  const archiving = archiver.last_archived_time
    ? `WAL is archived (${archiverName(archiver) ?? "archive_command"}: last segment ${archiver.last_archived_wal} at ${iso(archiver.last_archived_time)})`
    : null;

  if (stanza === null) {
    return warning(
      done(
        true,
        `${archiving ?? `archive_mode is ${archiver.archive_mode}, but no WAL segment has been archived yet`}; the newest backup's age is not checked here (BACKUP_STANZA is unset)`,
        `Set BACKUP_STANZA where \`pgbackrest info\` can read the repository, so this check sees the newest backup's age (${GUIDE}); or watch the backups where they are taken.`,
      ),
    );
  }
  const info = await (options.readInfo ?? ((s: string) => readPgBackRestInfo({ stanza: s })))(stanza);
  evidence.pgbackrest = pgBackRestEvidence(info);
  if (!info.ok) {
    return done(
      false,
      `BACKUP_STANZA is ${stanza}, but pgBackRest could not be asked about it: ${info.problem}`,
      "Install pgbackrest where the app runs and give it a configuration that reaches the repository (read access is enough; an encrypted repository needs its cipher pass), or unset BACKUP_STANZA.",
    );
  }
  if (info.status.code !== 0 || info.newest === null) return stanzaUnusable(stanza, info, done);
  const ageHours = (now.getTime() - info.newest.finishedAt.getTime()) / 3_600_000;
  evidence.newest_backup_age_hours = Math.round(ageHours * 10) / 10;
  return newestBackupVerdict({ stanza, maxAgeHours, ageHours, newest: info.newest, archiver, archiving }, done);
}

type Done = ReturnType<typeof stepReporter>;

/** Passed, with what the deployment does not cover. */
function warning(result: StepResult): StepResult {
  return { ...result, warning: true };
}

// pg_settings rather than current_setting(): a setting the role may not read is simply absent.
async function readArchiver(db: ReadinessContext["db"]): Promise<Archiver> {
  const [archiver] = await db.$queryRaw<Archiver[]>`
    SELECT pg_is_in_recovery() AS in_recovery,
           current_setting('archive_mode') AS archive_mode,
           (SELECT setting FROM pg_settings WHERE name = 'archive_command') AS archive_command,
           (SELECT setting FROM pg_settings WHERE name = 'archive_library') AS archive_library,
           a.archived_count, a.last_archived_wal, a.last_archived_time,
           a.failed_count, a.last_failed_wal, a.last_failed_time, a.stats_reset
      FROM pg_stat_archiver a`;
  if (!archiver) throw new Error("the database returned no archiver statistics");
  return archiver;
}

function archiverName(archiver: Archiver): string | null {
  return archiver.archive_library || firstWord(archiver.archive_command);
}

function archiverEvidence(archiver: Archiver): Record<string, unknown> {
  return {
    archive_mode: archiver.archive_mode,
    // The program only: the command line may carry credentials.
    archiver: archiverName(archiver),
    archived_count: Number(archiver.archived_count),
    last_archived_wal: archiver.last_archived_wal,
    last_archived_at: archiver.last_archived_time?.toISOString() ?? null,
    failed_count: Number(archiver.failed_count),
    last_failed_wal: archiver.last_failed_wal,
    last_failed_at: archiver.last_failed_time?.toISOString() ?? null,
    counted_since: archiver.stats_reset?.toISOString() ?? null,
  };
}

/** The verdict when the WAL does not leave the server (a standby asked, off, unset, failing); null when it does or may. */
function archivingVerdict(archiver: Archiver, done: Done): StepResult | null {
  if (archiver.in_recovery) {
    return done(
      false,
      "DATABASE_URL reaches a standby (read-only): the WAL archive is the primary's to report",
      "Point DATABASE_URL at the primary the way your failover engine documents it (with Patroni: HAProxy's primary port), then run the check again.",
    );
  }
  if (archiver.archive_mode === "off") {
    return warning(
      done(
        true,
        "WAL archiving is off (archive_mode = off): no WAL leaves this server, so a lost database comes back only from a copy made some other way, if one exists, and everything acknowledged after that copy is gone (the embedded default is like this and has no backup at all)",
        `Archive the WAL and take scheduled backups with pgBackRest (${GUIDE}); after a restore, \`npm run recover\` asks the provider for what it delivered since. A managed service that backs up on its own looks like this too: check its backups there.`,
      ),
    );
  }
  if (archiver.archive_command === "" && !archiver.archive_library) {
    return done(
      false,
      `archive_mode is ${archiver.archive_mode} but archive_command is empty: PostgreSQL keeps every WAL segment and archives none, until its disk fills`,
      `Set archive_command to pgBackRest's archive-push (${GUIDE}), or turn archive_mode off if another mechanism backs this database up.`,
    );
  }
  const lastOk = archiver.last_archived_time;
  const lastFailed = archiver.last_failed_time;
  if (lastFailed && (!lastOk || lastFailed >= lastOk)) {
    return done(
      false,
      `WAL archiving is failing: segment ${archiver.last_failed_wal} failed at ${iso(lastFailed)} (${archiver.failed_count} failures counted since ${iso(archiver.stats_reset)}; last success: ${lastOk ? `${archiver.last_archived_wal} at ${iso(lastOk)}` : "none"}); nothing written since can be restored`,
      "PostgreSQL's log names each failure. Run the archive command by hand as the database's OS user (with pgBackRest: `pgbackrest --stanza=<stanza> check` says whether the repository is reachable, full, or missing the stanza). Until it works, WAL piles up on the database's disk.",
    );
  }
  return null;
}

function pgBackRestEvidence(info: PgBackRestInfo): Record<string, unknown> {
  if (!info.ok) return { problem: info.problem };
  return {
    status: info.status,
    backups: info.backups,
    cipher: info.cipher,
    archive: info.archive,
    newest: info.newest && {
      label: info.newest.label,
      type: info.newest.type,
      finished_at: info.newest.finishedAt.toISOString(),
      database_bytes: info.newest.databaseBytes,
      repository_bytes: info.newest.repositoryBytes,
    },
  };
}
function iso(date: Date | null): string {
  return date ? date.toISOString().replace(".000Z", "Z") : "—";
}

function hours(value: number): string {
  return value < 1 ? `${Math.max(1, Math.round(value * 60))} min` : `${value.toFixed(1)} h`;
}

/** The program an archive_command runs (its first word, without a path). */
function firstWord(command: string | null): string | null {
  const word = command?.trim().split(/\s+/)[0];
  return word ? word.split("/").pop()! : null;
}

function stanzaUnusable(stanza: string, info: PgBackRestInfo & { ok: true }, done: Done): StepResult {
  return done(
    false,
    `pgBackRest says stanza ${stanza} is not usable: ${info.status.message}`,
    info.status.code === 2 || info.newest === null
      ? `Take a full backup now (\`pgbackrest --stanza=${stanza} --type=full backup\`) and schedule them (${GUIDE}).`
      : `Run \`pgbackrest --stanza=${stanza} check\` on the database's host: it names what is wrong with the stanza or the repository.`,
  );
}

/** A usable stanza: its newest backup within BACKUP_MAX_AGE_HOURS, and WAL archived since the counters began. */
function newestBackupVerdict(
  found: {
    stanza: string;
    maxAgeHours: number;
    ageHours: number;
    newest: NonNullable<(PgBackRestInfo & { ok: true })["newest"]>;
    archiver: Archiver;
    /** What the archiver did last; null when no segment was archived yet. */
    archiving: string | null;
  },
  done: Done,
): StepResult {
  const { stanza, maxAgeHours, ageHours, archiving } = found;
  const newest = `the newest backup (${found.newest.type} ${found.newest.label}) finished ${hours(ageHours)} ago`;
  if (ageHours > maxAgeHours) {
    return done(
      false,
      `${newest}, longer than BACKUP_MAX_AGE_HOURS (${maxAgeHours} h): a restore would replay every WAL segment since, and the schedule seems to have stopped`,
      `Check the backup schedule (cron or systemd timer on the backup host) and its log; take one now with \`pgbackrest --stanza=${stanza} --type=incr backup\` (${GUIDE}).`,
    );
  }
  if (!archiving) {
    return warning(
      done(
        true,
        `${newest}, but no WAL segment has been archived since the server started counting (${iso(found.archiver.stats_reset)}): a restore reaches only that backup until one is`,
        `Force one and watch it arrive: \`SELECT pg_switch_wal()\`, then \`pgbackrest --stanza=${stanza} check\` (${GUIDE}).`,
      ),
    );
  }
  return done(true, `${archiving}; ${newest} (bound ${maxAgeHours} h)`, null);
}
