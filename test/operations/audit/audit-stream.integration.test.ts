// The audit stream to a SIEM: a local receiver that is down for a while in the middle (the port
// closed, then a response lost after it took a batch) still ends with every audit entry exactly
// once per dedup key (id + hash), in seq order; the backlog shows while it is down; appending to
// the log never waits on the stream.
import { createServer, type Server } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { prisma } from "@/lib/core/db/client";
import type { Actor } from "@/lib/core/auth/actor";
import { recordAudit } from "@/lib/core/audit/record-audit";
import type { ChainedAuditEntry } from "@/lib/core/audit/audit-hash";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { streamAuditLog, streamBacklog } from "@/lib/operations/audit/stream-audit-log";
import { readAuditChain } from "@/lib/core/audit/read-audit-chain";
import { asOwnerWithoutTriggers } from "../../support/audit";

const admin: Actor = {
  id: "u-admin",
  email: "platform@keyhook.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};
const PORT = Number(process.env.AUDIT_STREAM_TEST_PORT ?? 5131);

type Mode = "up" | "lose-response";
let server: Server | null = null;
let mode: Mode = "up";
let secret = "";
const received: ChainedAuditEntry[][] = [];

function startReceiver(): Promise<void> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const message = new Webhook(secret).verify(body, req.headers as Record<string, string>) as {
        data: { entries: ChainedAuditEntry[] };
      };
      received.push(message.data.entries);
      if (mode === "lose-response") {
        mode = "up"; // took the batch, the answer never arrives: the sender must send it again
        req.socket.destroy();
        return;
      }
      res.writeHead(200).end("ok");
    });
  });
  return new Promise((resolve) => server!.listen(PORT, "127.0.0.1", resolve));
}
const stopReceiver = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

async function append(n: number, from: number) {
  for (let i = from; i < from + n; i++)
    await recordAudit({
      actor: { id: admin.id, label: admin.email },
      action: "key.revoke",
      target: `key_${i}`,
      outcome: "ok",
    });
}

beforeEach(async () => {
  await asOwnerWithoutTriggers(
    "TRUNCATE audit_log, audit_checkpoints, alert_channels, alerts CASCADE",
    `UPDATE audit_chain_head SET seq = 0, prev_hash = NULL, hash = decode(repeat('00', 32), 'hex')`,
  );
  received.length = 0;
  mode = "up";
});
afterEach(stopReceiver);

describe("the audit stream", () => {
  it("delivers every entry once per dedup key, in order, across a receiver that is down for a while", async () => {
    const created = await createAlertChannel({
      actor: admin,
      input: { kind: "audit_stream", name: "SIEM", target: `http://127.0.0.1:${PORT}/intake` },
    });
    secret = created.secret!;
    await startReceiver();
    await append(25, 1);
    let clock = Date.now();
    const now = () => new Date(clock);
    expect(await streamAuditLog({ now, batch: 10 })).toEqual({ sent: 26, failed: 0 });

    // Down: nothing listens. The log keeps taking entries; the destination waits, its backlog shows.
    await stopReceiver();
    await append(30, 26);
    expect(await streamAuditLog({ now, batch: 10 })).toEqual({ sent: 0, failed: 1 });
    const waiting = await prisma.alertChannel.findUniqueOrThrow({ where: { id: created.id } });
    expect(waiting.streamRetryAt!.getTime()).toBeGreaterThan(clock);
    expect(waiting).toMatchObject({ consecutiveFailures: 1, streamSentSeq: 26n });
    expect(await streamBacklog(waiting.streamSentSeq)).toBe(30);
    expect(await streamAuditLog({ now, batch: 10 })).toEqual({ sent: 0, failed: 0 }); // still backing off

    // Back, but the first batch's answer is lost after the receiver took it: sent again.
    await startReceiver();
    mode = "lose-response";
    clock = waiting.streamRetryAt!.getTime() + 1;
    expect(await streamAuditLog({ now, batch: 10 })).toMatchObject({ sent: 0, failed: 1 });
    clock += 10 * 60_000;
    await append(5, 56);
    expect(await streamAuditLog({ now, batch: 10 })).toEqual({ sent: 35, failed: 0 });

    const all: ChainedAuditEntry[] = [];
    for await (const entry of readAuditChain()) all.push(entry);
    expect(all).toHaveLength(61);
    const deliveries = received.flat();
    expect(deliveries.length).toBeGreaterThan(61); // the lost answer's batch came twice
    const byKey = new Map(deliveries.map((e) => [`${e.id}:${e.hash}`, e]));
    expect([...byKey.keys()]).toEqual(all.map((e) => `${e.id}:${e.hash}`)); // each once, in seq order
    for (const batch of received)
      expect(batch.map((e) => Number(e.seq))).toEqual([...batch.map((e) => Number(e.seq))].sort((a, b) => a - b));
    expect(
      await streamBacklog((await prisma.alertChannel.findUniqueOrThrow({ where: { id: created.id } })).streamSentSeq),
    ).toBe(0);
  });
});
