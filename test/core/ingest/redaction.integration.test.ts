// A provider that puts key material in a payload must not have it stored or shown: payloads keep
// the contract's fields only, anything else becomes {"redacted": true, "bytes": n} BEFORE it is
// stored. Proven by searching every row of every table, the ledger page's payload text and both
// CSV exports for the secret.
import { beforeEach, describe, expect, it } from "vitest";
import { auditCsvLines } from "@/lib/views/audit/audit-csv-lines";
import { prisma } from "@/lib/core/db/client";
import { replayStoredEvent } from "@/lib/operations/redelivery/replay-stored-event";
import { getLedgerEvent } from "@/lib/views/ledger/get-ledger-event";
import { ledgerCsvLines } from "@/lib/views/ledger/ledger-csv-lines";
import { resetDatabase } from "../../support/state";
import { deliver, keyEvent } from "../../support/webhooks";
import { OWN, seedTwoDistricts, type Actors } from "../../support/dashboard-fixtures";

const SECRET = "sk_live_51HxQeR2eZvKYlo2C8bV3nM4kP9tW";
const secretBytes = Buffer.byteLength(JSON.stringify(SECRET));

let actors: Actors;
beforeEach(async () => {
  await resetDatabase();
  actors = await seedTwoDistricts();
});

/** Every table of the schema, each row as text (all columns, json included), searched for `needle`. */
async function rowsContaining(needle: string): Promise<Record<string, number>> {
  const tables = await prisma.$queryRaw<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
  expect(tables.map((t) => t.name)).toEqual(
    expect.arrayContaining(["processed_events", "receipts", "audit_log", "api_keys", "outbox"]),
  );
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${name}" t WHERE t::text LIKE '%' || $1 || '%'`,
      needle,
    );
    if (row!.n > 0) found[name] = row!.n;
  }
  return found;
}

async function collect(lines: AsyncGenerator<string>): Promise<string> {
  let text = "";
  for await (const chunk of lines) text += chunk;
  return text;
}

async function ledgerId(eventId: string): Promise<string> {
  return String((await prisma.processedEvent.findFirstOrThrow({ where: { eventId } })).id);
}

describe("payload redaction", () => {
  it("replaces everything outside the contract before it is stored, keeping field names and sizes", async () => {
    const event: Record<string, unknown> = {
      ...keyEvent({
        id: "evt_secret_1",
        type: "key.created",
        tenantId: OWN,
        keyId: "key_secret_1",
        sequence: 10,
        prefix: "ik_live_abcd",
      }),
      api_token: { value: SECRET, nested: [1, 2, 3] },
    };
    (event.data as Record<string, unknown>).secret = SECRET;
    expect(await deliver(event)).toEqual({ status: 200, body: { outcome: "applied" } });

    const stored = await prisma.processedEvent.findFirstOrThrow({ where: { eventId: "evt_secret_1" } });
    expect(stored.payload).toEqual({
      id: "evt_secret_1",
      type: "key.created",
      tenant_id: OWN,
      key_id: "key_secret_1",
      sequence: 10,
      occurred_at: event.occurred_at,
      data: { prefix: "ik_live_abcd", scopes: ["rosters:read"], secret: { redacted: true, bytes: secretBytes } },
      api_token: { redacted: true, bytes: Buffer.byteLength(JSON.stringify(event.api_token)) },
    });
    expect(await rowsContaining("sk_live_")).toEqual({});
  });

  it("the secret appears in no stored row, no ledger page and no CSV: applied, quarantined, unknown type, rejected, replayed", async () => {
    const withSecret = (event: Record<string, unknown>): Record<string, unknown> => ({
      ...event,
      data: { ...(event.data as object), secret: SECRET },
    });
    const applied = withSecret(
      keyEvent({ id: "evt_s_applied", type: "key.created", tenantId: OWN, keyId: "key_s_applied", sequence: 20 }),
    );
    // Names the other district's key: quarantined, and shown on the quarantine list.
    const quarantined = withSecret(
      keyEvent({
        id: "evt_s_quarantined",
        type: "key.created",
        tenantId: OWN,
        keyId: "key_district-other_2",
        sequence: 21,
      }),
    );
    // An unknown type: its contract-named fields are checked by shape too.
    const unknown = {
      id: "evt_s_unknown",
      type: "key.renamed",
      tenant_id: OWN,
      key_id: { material: SECRET },
      sequence: SECRET,
      data: [SECRET],
      note: SECRET,
    };
    expect((await deliver(applied)).body.outcome).toBe("applied");
    expect((await deliver(quarantined)).body.outcome).toBe("quarantined");
    expect((await deliver(unknown)).body.outcome).toBe("ignored");
    // Rejected bodies keep no body at all: size, our error text and the ids.
    const noSequence = withSecret(
      keyEvent({ id: "evt_s_rejected", type: "key.created", tenantId: OWN, keyId: "key_s_r", sequence: 1 }),
    );
    delete noSequence.sequence;
    expect((await deliver(noSequence)).status).toBe(400);
    expect((await deliver({ ...applied, id: "evt_s_mismatch" }, { webhookId: "evt_s_other" })).status).toBe(400);
    expect((await deliver({ ...applied, [SECRET]: 1, extra: "\ud800" })).status).toBe(400);
    // A local replay re-reads the stored (redacted) payload: still a duplicate, still nothing.
    expect(await replayStoredEvent({ actor: actors.support, tenantId: OWN, eventId: "evt_s_applied" })).toMatchObject({
      outcome: "duplicate",
    });

    expect(await prisma.receipt.count({ where: { status: 400 } })).toBe(3);
    expect(await rowsContaining("sk_live_")).toEqual({});

    for (const eventId of ["evt_s_applied", "evt_s_quarantined", "evt_s_unknown"]) {
      const view = await getLedgerEvent({ actor: actors.districtAdmin, id: await ledgerId(eventId) });
      expect(view.payloadText).toContain('"redacted": true');
      expect(view.payloadText).not.toContain("sk_live_");
      expect(JSON.stringify(view, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toContain(
        "sk_live_",
      );
    }
    const unknownView = await getLedgerEvent({ actor: actors.support, id: await ledgerId("evt_s_unknown") });
    expect(JSON.parse(unknownView.payloadText!)).toMatchObject({
      id: "evt_s_unknown",
      type: "key.renamed",
      key_id: { redacted: true, bytes: Buffer.byteLength(JSON.stringify({ material: SECRET })) },
      sequence: { redacted: true, bytes: secretBytes },
      data: { redacted: true, bytes: secretBytes + 2 },
    });

    const ledgerCsv = await collect(ledgerCsvLines({ actor: actors.platformAdmin, filters: {} }));
    const auditCsv = await collect(auditCsvLines({ actor: actors.platformAdmin, filters: {} }));
    expect(ledgerCsv).toContain("evt_s_applied");
    expect(auditCsv).toContain("delivery.replay");
    expect(ledgerCsv + auditCsv).not.toContain("sk_live_");
  });

  it("a row stored before redaction existed is redacted on the ledger page", async () => {
    const legacy = {
      id: "evt_legacy",
      type: "key.revoked",
      tenant_id: OWN,
      key_id: "key_legacy",
      sequence: 5,
      data: { secret: SECRET },
      token: SECRET,
    };
    await prisma.$executeRaw`
      INSERT INTO processed_events (tenant_id, event_id, type, key_id, sequence, outcome, payload)
      VALUES (${OWN}, 'evt_legacy', 'key.revoked', 'key_legacy', 5, 'applied', ${JSON.stringify(legacy)}::jsonb)`;
    const view = await getLedgerEvent({ actor: actors.districtAdmin, id: await ledgerId("evt_legacy") });
    expect(JSON.parse(view.payloadText!)).toEqual({
      id: "evt_legacy",
      type: "key.revoked",
      tenant_id: OWN,
      key_id: "key_legacy",
      sequence: 5,
      data: { secret: { redacted: true, bytes: secretBytes } },
      token: { redacted: true, bytes: secretBytes },
    });
  });
});
