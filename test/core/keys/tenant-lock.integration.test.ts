// The one locking rule: every change of a district's keys takes the tenant row lock first. An
// ingest of the district in flight (its exact tenant statement, held uncommitted) makes each
// dashboard change wait; once it commits, the change proceeds and sees the ingest's result.
import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { issueKey } from "@/lib/core/keys/issue-key";
import { revokeKey } from "@/lib/core/keys/revoke-key";
import { rotateKey } from "@/lib/core/keys/rotate-key";
import { resolveQuarantinedEvent } from "@/lib/operations/quarantine/resolve-quarantined-event";
import { waitUntil } from "../../support/child-process";
import { resetDatabase } from "../../support/state";
import { ledgerIdOf, OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

/** The district without its active key: an issue is only asked for then (the provider allows one). */
const deactivateOwnKey = () =>
  prisma.apiKey.updateMany({
    where: { tenantId: OWN, status: "active" },
    data: { status: "revoked", revokedAt: new Date() },
  });

const changes: [string, () => Promise<unknown>, (() => Promise<unknown>)?][] = [
  ["revoke", () => revokeKey({ actor: actors.districtAdmin, keyId: `key_${OWN}_2` })],
  ["rotate", () => rotateKey({ actor: actors.platformAdmin, keyId: `key_${OWN}_2` })],
  [
    "issue",
    () =>
      issueKey({
        actor: actors.platformAdmin,
        tenantId: OWN,
        scopes: ["rosters:read"],
        requestToken: "lock-test-token",
      }),
    deactivateOwnKey,
  ],
  [
    "quarantine resolve",
    async () =>
      resolveQuarantinedEvent({
        actor: actors.support,
        id: await ledgerIdOf(OWN, `evt_${OWN}_q`),
        resolution: "dismissed",
      }),
  ],
];

async function backendsWaitingOnALock(observer: pg.Client, except: number): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
    [except],
  );
  return rows[0]!.n;
}

describe("every change of a district's keys takes the tenant row lock first", () => {
  it.each(changes)(
    "%s waits for an ingest of the district in flight, then completes",
    async (_name, change, prepare) => {
      await prepare?.();
      const ingest = new pg.Client({ connectionString: process.env.DATABASE_URL });
      const observer = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await Promise.all([ingest.connect(), observer.connect()]);
      try {
        await ingest.query("BEGIN");
        // Step 2 of keyhook_apply_event, word for word: the lock an ingest holds until it commits.
        await ingest.query(
          "INSERT INTO tenants AS t (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET updated_at = now()",
          [OWN],
        );
        const ingestPid = (await ingest.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;

        let settled = false;
        const running = change();
        running.then(
          () => (settled = true),
          () => (settled = true),
        );
        await waitUntil(async () => settled || (await backendsWaitingOnALock(observer, ingestPid)) > 0);
        expect(settled, "the change ran without waiting for the tenant lock").toBe(false);

        await ingest.query("COMMIT");
        await expect(running).resolves.toBeDefined();
      } finally {
        await ingest.query("ROLLBACK").catch(() => {});
        await Promise.all([ingest.end(), observer.end()]);
      }
    },
  );

  it("an issue waiting on the lock sees the key the ingest activated, and refuses a second", async () => {
    await deactivateOwnKey();
    const ingest = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const observer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([ingest.connect(), observer.connect()]);
    try {
      await ingest.query("BEGIN");
      await ingest.query(
        "INSERT INTO tenants AS t (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET updated_at = now()",
        [OWN],
      );
      const ingestPid = (await ingest.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      // The provider's key.created for a new key, applied but not yet committed.
      await ingest.query(
        "INSERT INTO api_keys (id, tenant_id, status, activated_seq) VALUES ('key_arriving', $1, 'active', 9)",
        [OWN],
      );
      const issuing = issueKey({
        actor: actors.platformAdmin,
        tenantId: OWN,
        scopes: ["rosters:read"],
        requestToken: "lock-test-second",
      });
      issuing.catch(() => undefined);
      await waitUntil(async () => (await backendsWaitingOnALock(observer, ingestPid)) > 0);
      await ingest.query("COMMIT");
      await expect(issuing).rejects.toMatchObject({ code: "conflict" });
    } finally {
      await ingest.query("ROLLBACK").catch(() => {});
      await Promise.all([ingest.end(), observer.end()]);
    }
    expect(await prisma.outboxMessage.count({ where: { kind: "key.issue" } })).toBe(0);
  });

  it("a revoke waiting on the lock reads the key as the ingest left it", async () => {
    const keyId = `key_${OWN}_2`;
    const ingest = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const observer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([ingest.connect(), observer.connect()]);
    try {
      await ingest.query("BEGIN");
      await ingest.query(
        "INSERT INTO tenants AS t (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET updated_at = now()",
        [OWN],
      );
      const ingestPid = (await ingest.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      // The ingest revokes the key (the provider's key.revoked) before it commits.
      await ingest.query("UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1", [keyId]);

      const revoking = revokeKey({ actor: actors.districtAdmin, keyId });
      await waitUntil(async () => (await backendsWaitingOnALock(observer, ingestPid)) > 0);
      await ingest.query("COMMIT");
      expect(await revoking).toMatchObject({ keyId, outcome: "already_revoked" });
    } finally {
      await ingest.query("ROLLBACK").catch(() => {});
      await Promise.all([ingest.end(), observer.end()]);
    }
    expect(await prisma.outboxMessage.count({ where: { kind: "key.revoke" } })).toBe(0);
  });
});
