// The Districts list's "Needs attention": every reason to open a district, not only superseded
// keys: events waiting in quarantine, missing events (open sequence gaps), drift alerts.
import { beforeEach, describe, expect, it } from "vitest";
import { raiseAlert } from "@/lib/operations/alerts/upsert-alert";
import { listDistrictsPage } from "@/lib/views/districts/list-districts";
import { resolveQuarantinedEvent } from "@/lib/operations/quarantine/resolve-quarantined-event";
import { prisma } from "@/lib/core/db/client";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";
import { OTHER, OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

const row = async (tenantId: string) =>
  (await listDistrictsPage({ actor: actors.support })).rows.find((d) => d.id === tenantId)!;

describe("Districts: needs attention", () => {
  it("counts events waiting in quarantine until a human resolves them", async () => {
    // The fixtures' misrouted event of each district.
    expect(await row(OWN)).toMatchObject({ quarantined: 1, missingEvents: 0, drift: 0, supersededKeys: 0 });
    const ledger = await prisma.processedEvent.findFirstOrThrow({ where: { tenantId: OWN, outcome: "quarantined" } });
    await resolveQuarantinedEvent({
      actor: actors.platformAdmin,
      id: String(ledger.id),
      resolution: "dismissed",
      note: "test",
    });
    expect((await row(OWN)).quarantined).toBe(0);
  });

  it("counts the events a sequence gap is missing, and drift alerts", async () => {
    await deliver(keyEvent({ type: "key.revoked", tenantId: OTHER, keyId: "key_far", sequence: 77 }));
    expect((await row(OTHER)).missingEvents).toBe(73); // 4..76
    await raiseAlert({
      kind: "drift_local_active",
      subject: `drift/${OTHER}/key_x`,
      tenantId: OTHER,
      now: new Date(),
    });
    expect((await row(OTHER)).drift).toBe(1);
    expect((await row(OWN)).drift).toBe(0);
  });
});
