// The ledger event page's service: any id a URL can carry is a 404 or a row (never a database
// error), and any stored payload renders, however deep (JSON.stringify threw RangeError at
// 8,000 levels and the page answered 500).
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { getLedgerEvent } from "@/lib/views/ledger/get-ledger-event";
import { resetDatabase } from "../../support/state";
import { OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

describe("getLedgerEvent", () => {
  it.each(["9999999999999999999", "9223372036854775808", "99999999999999999999", "-1", "0", "abc", "1e3", " 1", ""])(
    "id %j → not found",
    async (id) => {
      await expect(getLedgerEvent({ actor: actors.support, id })).rejects.toMatchObject({ code: "not_found" });
    },
  );

  it("the largest bigint is looked up (and simply not there)", async () => {
    await expect(getLedgerEvent({ actor: actors.support, id: "9223372036854775807" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("renders an 8,000-level payload stored directly in the database, capped instead of throwing", async () => {
    const depth = 8_000;
    const deep = "[".repeat(depth) + "]".repeat(depth);
    // Deep inside a contract field's place (data.scopes) and in a field of its own.
    const payload = `{"id":"evt_deep","type":"key.created","tenant_id":"${OWN}","key_id":"key_deep","sequence":50,"data":{"scopes":${deep}},"extra":${deep}}`;
    await prisma.$executeRaw`
      INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, payload)
      VALUES (${OWN}, 'evt_deep', 'key.created', 'key_deep', 50, 'applied', ${payload}::jsonb)`;
    const row = await prisma.processedEvent.findFirstOrThrow({ where: { eventId: "evt_deep" } });
    expect(() => JSON.stringify(row.payload)).toThrow(RangeError); // what the page did before

    const view = await getLedgerEvent({ actor: actors.districtAdmin, id: String(row.id) });
    const shown = JSON.parse(view.payloadText!) as Record<string, unknown>;
    expect(shown).toMatchObject({
      id: "evt_deep",
      key_id: "key_deep",
      data: { scopes: { redacted: true, bytes: 2 * depth } },
      extra: { redacted: true, bytes: 2 * depth },
    });
  });

  it("a purged payload is null, the rest of the event still shown", async () => {
    await prisma.$executeRaw`UPDATE processed_events SET payload = NULL WHERE event_id = ${`evt_${OWN}_1`}`;
    const row = await prisma.processedEvent.findFirstOrThrow({ where: { eventId: `evt_${OWN}_1` } });
    const view = await getLedgerEvent({ actor: actors.districtAdmin, id: String(row.id) });
    expect(view).toMatchObject({ eventId: `evt_${OWN}_1`, payloadText: null });
    expect(view.receipts.length).toBeGreaterThan(0);
  });
});
