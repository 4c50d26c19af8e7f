// 60 concurrent sign-ins with unknown emails (production hash cost) while 10 signed deliveries
// run through the ingest route handler in the same process: hashing runs on libuv's pool behind
// a bounded queue, so the event loop and the pool stay free for ingest and no delivery gets a
// 503. (With bcryptjs on the event loop, 5 of 10 got 503 P2028 here.) No timing assertion: the
// latencies are printed; the isolation benchmark (bench/isolation.ts) measures p99 ratios.
import { beforeAll, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/core/config/env";
import { hashLimiter } from "@/lib/core/auth/passwords";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";
import { deliver, keyEvent } from "../../support/webhooks";

beforeAll(() => {
  process.env.PASSWORD_SCRYPT_LOG_N = "15";
  resetEnvForTests();
});

it("60 concurrent sign-ins + 10 concurrent signed deliveries → 0 ingest 503s", async () => {
  await verifyCredentials({ email: "warm@x.test", password: "x", address: "warm" }); // dummy hash computed once
  let signInsDone = 0;
  const signIns = Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      verifyCredentials({ email: `unknown-${i}@x.test`, password: `pw-${i}`, address: `10.9.${i >> 4}.${i}` }).finally(
        () => signInsDone++,
      ),
    ),
  );
  // Let the burst fill the hash queue before the deliveries start.
  while (hashLimiter().stats.queued < 30) await new Promise((resolve) => setImmediate(resolve));
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const t = performance.now();
      const answer = await deliver(
        keyEvent({
          id: `evt_flood_${i}`,
          type: "key.created",
          tenantId: `district-flood-${i}`,
          keyId: `key_flood_${i}`,
          sequence: 1,
        }),
      );
      return { status: answer.status, ms: performance.now() - t };
    }),
  );
  const deliveriesMs = performance.now() - started;
  // The deliveries really ran inside the burst, not after it.
  expect(signInsDone).toBeLessThan(60);
  const results = await signIns;
  console.log("ingest during sign-in flood:", {
    statuses: answers.map((a) => a.status),
    maxMs: Math.max(...answers.map((a) => a.ms)).toFixed(1),
    deliveriesMs: deliveriesMs.toFixed(1),
    signInsDoneWhenDeliveriesFinished: signInsDone,
  });
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
  expect(results.every((r) => !r.ok && r.code === "InvalidCredentials")).toBe(true);
}, 120_000);
