// One failover of the Patroni cluster, the way it goes wrong in production: the primary's WAL
// stream stalls first (a saturated link, a standby's slow disk) so the standby falls behind,
// then the primary dies. With synchronous replication the stall stops commits from returning
// (ingest answers 503); with asynchronous replication they return, and what the standby had not
// received when the primary died is gone after the promotion. Times are epoch milliseconds, to
// be compared with the simulator's delivery history.
import type { PatroniCluster } from "../test/support/patroni-cluster";
import { withPgClient } from "../test/support/pg-client";

export type FailoverKind = "crash" | "node";

export type FailoverRecord = {
  kind: FailoverKind;
  from: string;
  to: string | null;
  frozenAt: number;
  killedAt: number;
  /** How far the standby's replay was behind the primary's WAL when it was killed. */
  standbyBehindBytes: number | null;
  promotedAt: number | null;
  /** The old primary back as a standby (synchronous mode: confirming again). */
  healthyAt: number | null;
};

export async function failOver(
  cluster: PatroniCluster,
  options: { kind: FailoverKind; freezeMs: number; timeoutMs?: number; log: (line: string) => void },
): Promise<FailoverRecord> {
  const from = await cluster.leader();
  if (from === null) throw new Error("no primary to fail over from");
  const record: FailoverRecord = {
    kind: options.kind,
    from: cluster.nodeName(from),
    to: null,
    frozenAt: Date.now(),
    killedAt: 0,
    standbyBehindBytes: null,
    promotedAt: null,
    healthyAt: null,
  };
  cluster.freezeReplication(from);
  await new Promise((resolve) => setTimeout(resolve, options.freezeMs));
  record.standbyBehindBytes = await standbyLag(cluster.nodeUrl(from, "postgres"));
  record.killedAt = Date.now();
  if (options.kind === "crash") cluster.crashPostgres(from);
  else cluster.killNode(from);
  // What the stalled link still held dies with the primary (thawing would deliver it late).
  await cluster.dropReplication(from);

  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const leader = await cluster.leader();
    if (leader !== null && leader !== from) {
      record.promotedAt = Date.now();
      record.to = cluster.nodeName(leader);
      break;
    }
    if (Date.now() > deadline) throw new Error(`no new primary within ${timeoutMs} ms of killing ${record.from}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  options.log(`${record.to} promoted ${record.promotedAt - record.killedAt} ms after ${record.from} was killed`);
  // A machine that died comes back (a reboot): with two nodes, synchronous commits wait for it.
  if (options.kind === "node") cluster.startNode(from);
  await cluster.waitForHealthy({ timeoutMs });
  record.healthyAt = Date.now();
  options.log(`cluster healthy again ${record.healthyAt - record.killedAt} ms after the kill`);
  return record;
}

async function standbyLag(url: string): Promise<number | null> {
  try {
    const behind = await withPgClient(url, async (client) => {
      const { rows } = await client.query<{ behind: string | null }>(
        "SELECT max(pg_current_wal_lsn() - replay_lsn)::text AS behind FROM pg_stat_replication",
      );
      return rows[0]?.behind ?? null;
    });
    return behind === null ? null : Number(behind);
  } catch {
    return null;
  }
}
