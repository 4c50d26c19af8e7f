import "server-only";
// What pgBackRest says about a stanza's repository: `pgbackrest --stanza=S --output=json info`,
// run on this host with pgbackrest's own configuration (its config file, or its PGBACKREST_*
// environment). Only the console is asked for: no log file is written, so the app's user needs
// read access to the repository and nothing else. A missing binary, a timeout, an error or an
// answer we cannot read is a `problem` in pgbackrest's own words (first line), never a throw.
import { execFile, type ExecFileException } from "node:child_process";
import { z } from "zod";

type NewestBackup = {
  label: string;
  type: "full" | "diff" | "incr";
  startedAt: Date;
  finishedAt: Date;
  /** The database's size at the backup, and what this backup added to the repository. */
  databaseBytes: number;
  repositoryBytes: number;
};

export type PgBackRestInfo =
  | {
      ok: true;
      /** pgBackRest's verdict on the stanza: 0 is "ok", 2 "no valid backups" … */
      status: { code: number; message: string };
      backups: number;
      newest: NewestBackup | null;
      /** The oldest and newest WAL segment in the repository. */
      archive: { min: string | null; max: string | null } | null;
      cipher: string | null;
    }
  | { ok: false; problem: string };

const timestamp = z.object({ start: z.number(), stop: z.number() });
const stanzaInfo = z.object({
  name: z.string(),
  status: z.object({ code: z.number(), message: z.string() }),
  cipher: z.string().nullish(),
  backup: z.array(
    z.object({
      label: z.string(),
      type: z.enum(["full", "diff", "incr"]),
      timestamp,
      info: z.object({ size: z.number(), repository: z.object({ delta: z.number() }) }),
    }),
  ),
  archive: z.array(z.object({ min: z.string().nullable(), max: z.string().nullable() })),
});

const PROBLEM_CHARS = 300;

export async function readPgBackRestInfo(options: {
  stanza: string;
  /** The pgbackrest binary; default `pgbackrest` on the PATH. */
  command?: string;
  timeoutMs?: number;
}): Promise<PgBackRestInfo> {
  const command = options.command ?? "pgbackrest";
  const args = [
    `--stanza=${options.stanza}`,
    "--output=json",
    "--log-level-file=off",
    "--log-level-console=off",
    "--log-level-stderr=error",
    "info",
  ];
  const run = await new Promise<{ stdout: string; stderr: string; error: ExecFileException | null }>((resolve) => {
    execFile(
      // A host binary, not a file of the app: the build's file tracer must not follow it (it
      // would copy the whole project into the standalone output).
      /* turbopackIgnore: true */ command,
      args,
      { timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => resolve({ stdout, stderr, error }),
    );
  });
  if (run.error) {
    if (run.error.code === "ENOENT")
      return { ok: false, problem: `${command} is not installed on this host (or not on its PATH)` };
    if (run.error.killed)
      return { ok: false, problem: `${command} info did not answer within ${options.timeoutMs ?? 30_000} ms` };
    const said = firstLine(run.stderr) ?? firstLine(run.stdout) ?? run.error.message;
    return { ok: false, problem: `${command} info failed: ${said}`.slice(0, PROBLEM_CHARS) };
  }
  let parsed: z.output<typeof stanzaInfo> | undefined;
  try {
    parsed = z
      .array(stanzaInfo)
      .parse(JSON.parse(run.stdout))
      .find((s) => s.name === options.stanza);
  } catch {
    return { ok: false, problem: `${command} info answered something that is not its JSON output` };
  }
  if (!parsed) return { ok: false, problem: `${command} info does not list the stanza ${options.stanza}` };
  const newest = parsed.backup.reduce<(typeof parsed.backup)[number] | null>(
    (latest, backup) => (latest === null || backup.timestamp.stop > latest.timestamp.stop ? backup : latest),
    null,
  );
  const archive = parsed.archive[parsed.archive.length - 1];
  return {
    ok: true,
    status: parsed.status,
    backups: parsed.backup.length,
    newest: newest && {
      label: newest.label,
      type: newest.type,
      startedAt: new Date(newest.timestamp.start * 1000),
      finishedAt: new Date(newest.timestamp.stop * 1000),
      databaseBytes: newest.info.size,
      repositoryBytes: newest.info.repository.delta,
    },
    archive: archive ? { min: archive.min, max: archive.max } : null,
    cipher: parsed.cipher ?? null,
  };
}

function firstLine(text: string): string | null {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  return line ?? null;
}
