// The readiness step "an acknowledged change survives a failover" on the test server: a single
// PostgreSQL with no standby, the embedded default. With a synchronous and an asynchronous
// standby (Patroni): test/failover/failover.integration.test.ts.
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { checkFailoverDurability } from "@/lib/operations/readiness/step-failover-durability";
import { readinessContext } from "../../support/readiness-context";

describe("readiness: an acknowledged change survives a failover", () => {
  it("on a single server: passes with a warning that says so and what would cover it", async () => {
    const result = await checkFailoverDurability(readinessContext(prisma));
    expect(result).toMatchObject({ id: "failover_durability", passed: true, warning: true });
    expect(result.summary).toMatch(/single server/);
    expect(result.fix).toMatch(/synchronous standby/);
    expect(result.evidence).toMatchObject({ synchronous_standby_names: "", standbys: [] });
  });
});
