// The job queue behind a transaction-mode PgBouncer, as a pooled deployment runs it: the app
// enqueues with plain SQL through the pooler inside its own transaction (the job exists exactly
// when the change commits), and the worker's queue, on DIRECT_DATABASE_URL, is woken by the
// enqueue's NOTIFY and sends the row.
import { directUrl } from "../support/via-pooler";
import { EventEmitter } from "node:events";
import type { Runner } from "graphile-worker";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { DEV_PROVIDER_API_KEY } from "@/lib/core/config/env";
import { OUTBOX_DRAIN_KEY } from "@/lib/core/queue/job-names";
import { startJobWorker } from "@/lib/operations/worker/start-job-worker";
import { createAlertChannel } from "@/lib/operations/notifications/manage-channels";
import { drainOutbox } from "@/lib/operations/outbox/drain-outbox";
import { enqueueOutbox } from "@/lib/core/outbox/enqueue-outbox";
import { createProviderClient } from "@/lib/operations/provider/client";
import { startHttpReceiver, type HttpReceiver } from "../support/receivers";
import { resetDatabase } from "../support/state";

const admin = {
  id: "admin-1",
  email: "admin@keyhook.test",
  name: null,
  role: "platform_admin" as const,
  tenantId: null,
};
const client = createProviderClient({ baseUrl: "http://127.0.0.1:9", apiKey: DEV_PROVIDER_API_KEY, maxRetries: 0 });
let runner: Runner | null = null;
let receiver: HttpReceiver | null = null;

beforeEach(async () => {
  await resetDatabase();
  await prisma.$executeRawUnsafe(`DELETE FROM graphile_worker._private_jobs`);
});
afterEach(async () => {
  await runner?.stop();
  await receiver?.close();
  runner = null;
  receiver = null;
});

const payload = (channelId: string, n: number) => ({
  channelId,
  alertId: String(n),
  event: "alert.opened" as const,
  title: `message ${n}`,
  text: `message ${n}`,
  alert: {
    id: String(n),
    kind: "test",
    subject: `s${n}`,
    tenantId: null,
    state: "open",
    count: 1,
    firstSeenAt: "",
    lastSeenAt: "",
  },
});
const drainJobs = () =>
  prisma.$queryRaw<
    { key: string | null }[]
  >`SELECT key FROM graphile_worker.jobs WHERE task_identifier = 'outbox.drain'`;

describe("the job queue through a transaction-mode pooler", () => {
  it("an enqueue in a rolled-back transaction leaves neither the row nor the job; a committed one leaves both", async () => {
    await expect(
      prisma.$transaction(async (tx) => {
        await enqueueOutbox(
          { kind: "notify.slack", tenantId: null, idempotencyKey: "k-rolled-back", payload: payload("ch_x", 1) },
          tx,
        );
        throw new Error("the local change failed");
      }),
    ).rejects.toThrow("the local change failed");
    expect(await prisma.outboxMessage.count()).toBe(0);
    expect(await drainJobs()).toEqual([]);

    await prisma.$transaction(async (tx) => {
      for (let n = 2; n <= 4; n++)
        await enqueueOutbox(
          { kind: "notify.slack", tenantId: null, idempotencyKey: `k-${n}`, payload: payload("ch_x", n) },
          tx,
        );
    });
    expect(await prisma.outboxMessage.count()).toBe(3);
    expect(await drainJobs()).toEqual([{ key: OUTBOX_DRAIN_KEY }]); // three enqueues, one coalesced job
  });

  it("a running worker on the direct URL is woken by the enqueue's NOTIFY and sends the row", async () => {
    let delivered: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (delivered = resolve));
    receiver = await startHttpReceiver(() => {
      delivered();
      return 200;
    });
    const channel = await createAlertChannel({
      actor: admin,
      input: { kind: "slack", name: "chat", target: receiver.url },
    });
    const events = new EventEmitter();
    // Idle: LISTENing, and its first look for jobs found none.
    const idle = Promise.all([
      new Promise((resolve) => events.once("pool:listen:success", resolve)),
      new Promise((resolve) => events.once("worker:getJob:empty", resolve)),
    ]);
    runner = await startJobWorker({
      events,
      connectionString: directUrl(),
      jobs: [{ task: "outbox.drain", run: () => drainOutbox({ client }).then(() => undefined) }],
      concurrency: 1,
      // Far longer than the test's timeout: only the NOTIFY can wake it in time.
      pollIntervalMs: 60_000,
    });
    await idle;
    await enqueueOutbox({
      kind: "notify.slack",
      tenantId: null,
      idempotencyKey: "k-wake",
      payload: payload(channel.id, 9),
    });
    await arrived;
    expect(receiver.requests).toHaveLength(1);
  });
});
