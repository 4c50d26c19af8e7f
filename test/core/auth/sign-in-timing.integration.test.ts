// Timing does not tell an unknown email, a wrong password, a throttled or a disabled account
// apart: each costs one production-cost scrypt hash. Compared as medians of many runs with a
// generous ratio bound (no absolute durations): a throttled account used to answer far faster.
import { beforeAll, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { resetEnvForTests } from "@/lib/core/config/env";
import { hashPassword } from "@/lib/core/auth/passwords";
import { verifyCredentials } from "@/lib/core/auth/verify-credentials";

const password = "correct horse battery";

beforeAll(async () => {
  process.env.PASSWORD_SCRYPT_LOG_N = "15"; // the production cost, so the hash dominates as it does there
  resetEnvForTests();
  const passwordHash = await hashPassword(password);
  await prisma.user.create({ data: { email: "wrong@x.test", role: "support", passwordHash } });
  await prisma.user.create({
    data: {
      email: "locked@x.test",
      role: "support",
      passwordHash,
      failedLogins: 50,
      lockedUntil: new Date(Date.now() + 3_600_000),
    },
  });
  await prisma.user.create({
    data: { email: "disabled@x.test", role: "support", passwordHash, disabledAt: new Date() },
  });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

it("unknown, wrong, throttled and disabled take comparable time (medians within 1.6×)", async () => {
  const cases: Record<string, (i: number) => Promise<unknown>> = {
    unknown: (i) => verifyCredentials({ email: `nobody${i}@x.test`, password: "nope", address: `u${i}` }),
    wrong: (i) => verifyCredentials({ email: "wrong@x.test", password: "nope", address: `w${i}` }),
    throttled: (i) => verifyCredentials({ email: "locked@x.test", password: "nope", address: `t${i}` }),
    disabled: (i) => verifyCredentials({ email: "disabled@x.test", password: "nope", address: `d${i}` }),
  };
  await cases.unknown!(-1);
  const samples: Record<string, number[]> = { unknown: [], wrong: [], throttled: [], disabled: [] };
  // Interleaved, so a slow moment of the shared machine hits every case alike. The wrong-password
  // account is reset each round so it is never throttled itself.
  for (let i = 0; i < 9; i++) {
    await prisma.user.update({ where: { email: "wrong@x.test" }, data: { failedLogins: 0, lockedUntil: null } });
    for (const [name, run] of Object.entries(cases)) {
      const start = performance.now();
      await run(i);
      samples[name]!.push(performance.now() - start);
    }
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
  const ratio = Math.max(...Object.values(medians)) / Math.min(...Object.values(medians));
  console.log("sign-in median ms", medians, "max/min", ratio.toFixed(2));
  expect(ratio).toBeLessThan(1.6);
});
