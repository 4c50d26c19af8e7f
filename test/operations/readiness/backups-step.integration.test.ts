// The readiness step "a lost database can be restored": WAL archiving absent (the test server, like
// the embedded default: a warning that passes), then on a PostgreSQL 15 archiving into a real
// pgBackRest repository (test/support/archived-postgres.ts): no backup yet, a fresh backup, one
// too old, archiving failing and working again, archive_command emptied, pgbackrest missing.
// Without Debian's pgbackrest and postgresql-15 the second part is skipped, except under CI=true,
// where it fails.
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { readPgBackRestInfo } from "@/lib/operations/readiness/read-pgbackrest-info";
import { checkBackups } from "@/lib/operations/readiness/step-backups";
import { archivedPostgresMissing, startArchivedPostgres, type ArchivedPostgres } from "../../support/archived-postgres";
import { readinessContext } from "../../support/readiness-context";

const HOUR_MS = 3_600_000;

describe("readiness: a lost database can be restored, without WAL archiving", () => {
  it("passes with a warning that says archiving is off and what would cover it", async () => {
    const result = await checkBackups(readinessContext(prisma), { stanza: null });
    expect(result).toMatchObject({ id: "backups", passed: true, warning: true });
    expect(result.summary).toMatch(/WAL archiving is off/);
    // It promises no copy: the embedded default has none.
    expect(result.summary).toMatch(/comes back only from a copy made some other way, if one exists/);
    expect(result.summary).toMatch(/the embedded default is like this and has no backup at all/);
    expect(result.fix).toMatch(/pgBackRest/);
    expect(result.evidence).toMatchObject({ archive_mode: "off" });
  });
});

const missing = archivedPostgresMissing();
if (missing && process.env.CI === "true") throw new Error(`the backup tests cannot run under CI: ${missing}`);

describe.skipIf(missing !== null)("readiness: a lost database can be restored, with pgBackRest", () => {
  let server: ArchivedPostgres;
  let db: PrismaClient;
  // pgbackrest reads its own configuration from its environment, as on an operator's host.
  const configBefore = process.env.PGBACKREST_CONFIG;
  const check = (options: Parameters<typeof checkBackups>[1] = {}, now = new Date()) =>
    checkBackups({ ...readinessContext(db), now: () => now }, { stanza: server.stanza, maxAgeHours: 26, ...options });

  beforeAll(async () => {
    server = await startArchivedPostgres({
      dir: ".data/test-archived-postgres",
      port: Number(process.env.TEST_ARCHIVE_PG_PORT ?? 54342),
      settings: { fsync: "off" },
    });
    process.env.PGBACKREST_CONFIG = server.configFile;
    db = new PrismaClient({ adapter: new PrismaPg({ connectionString: server.url("postgres") }) });
  }, 120_000);
  afterAll(async () => {
    if (configBefore === undefined) delete process.env.PGBACKREST_CONFIG;
    else process.env.PGBACKREST_CONFIG = configBefore;
    await db?.$disconnect();
    await server?.remove();
  });

  it("fails while the repository holds no backup, and says how to take one", async () => {
    const result = await check();
    expect(result).toMatchObject({ passed: false });
    expect(result.summary).toMatch(/not usable: no valid backups/);
    expect(result.fix).toContain(`pgbackrest --stanza=${server.stanza} --type=full backup`);
  });

  it("passes with archiving working and a fresh backup; without BACKUP_STANZA it warns that the age is not checked", async () => {
    await server.backup("full");
    const segment = await server.switchWal();
    const result = await check();
    expect(result, `${result.summary} | ${result.fix}`).toMatchObject({ passed: true, fix: null });
    expect(result.warning).toBeUndefined();
    expect(result.summary).toMatch(/WAL is archived \(pgbackrest: last segment/);
    expect(result.evidence).toMatchObject({
      archive_mode: "on",
      archiver: "pgbackrest",
      last_archived_wal: segment,
      pgbackrest: { status: { code: 0 }, backups: 1, cipher: "aes-256-cbc", newest: { type: "full" } },
    });

    const unconfigured = await check({ stanza: null });
    expect(unconfigured).toMatchObject({ passed: true, warning: true });
    expect(unconfigured.summary).toMatch(/not checked here \(BACKUP_STANZA is unset\)/);
  });

  it("fails when the newest backup is older than the bound", async () => {
    const result = await check({}, new Date(Date.now() + 27 * HOUR_MS));
    expect(result).toMatchObject({ passed: false });
    expect(result.summary).toMatch(/finished 27\.\d h ago, longer than BACKUP_MAX_AGE_HOURS \(26 h\)/);
    expect(result.fix).toContain("--type=incr backup");
    // Within the bound, the same backup passes.
    expect((await check({}, new Date(Date.now() + 25 * HOUR_MS))).passed).toBe(true);
  });

  it("fails while archiving fails, names the segment, and passes again once a segment is archived", async () => {
    await server.setArchiveCommand(`/usr/bin/pgbackrest --config=${server.configFile} --stanza=wrong archive-push %p`);
    try {
      const failed = await server.switchWal();
      const result = await check();
      expect(result).toMatchObject({ passed: false, evidence: { last_failed_wal: failed } });
      expect(result.summary).toMatch(new RegExp(`WAL archiving is failing: segment ${failed} failed at`));
      expect(result.fix).toMatch(/pgbackrest --stanza=<stanza> check/);
    } finally {
      await server.setArchiveCommand(null);
    }
    // The failed segment goes out with the next attempt, then the new one.
    const segment = await server.switchWal({ timeoutMs: 120_000 });
    await expect.poll(async () => (await check()).passed, { timeout: 120_000, interval: 200 }).toBe(true);
    expect((await check()).evidence.last_archived_wal).toBe(segment);
  }, 180_000);

  it("fails when archive_mode is on but archive_command is empty", async () => {
    await server.setArchiveCommand("");
    try {
      const result = await check();
      expect(result).toMatchObject({ passed: false });
      expect(result.summary).toMatch(/archive_command is empty: PostgreSQL keeps every WAL segment/);
    } finally {
      await server.setArchiveCommand(null);
    }
  });

  it("fails when BACKUP_STANZA is set but pgbackrest cannot be run, in plain words", async () => {
    const result = await check({
      readInfo: (stanza) => readPgBackRestInfo({ stanza, command: "/nonexistent/pgbackrest" }),
    });
    expect(result).toMatchObject({ passed: false });
    expect(result.summary).toBe(
      `BACKUP_STANZA is ${server.stanza}, but pgBackRest could not be asked about it: /nonexistent/pgbackrest is not installed on this host (or not on its PATH)`,
    );
    const unknown = await check({ stanza: "nosuch" });
    expect(unknown).toMatchObject({ passed: false });
    expect(unknown.summary).toMatch(/stanza nosuch is not usable: missing stanza path/);
  });
});
