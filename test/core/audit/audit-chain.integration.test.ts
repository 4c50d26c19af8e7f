// The hash chain as PostgreSQL writes it: the trigger's link hash is the one the offline verifier
// computes (lib/core/audit/audit-hash.ts) for entries of every shape, concurrent writers get a
// gapless total order, a rolled-back append hands its seq back, and entries from before the chain
// are sealed into it.
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import { recordAudit } from "@/lib/core/audit/record-audit";
import { expectedHash, GENESIS_HASH } from "@/lib/core/audit/audit-hash";
import { readAuditChain } from "@/lib/core/audit/read-audit-chain";
import { verifyAuditChain } from "@/lib/core/audit/verify-audit-chain";
import { sealAuditChain } from "@/lib/core/audit/seal-audit-chain";
import { asOwnerWithoutTriggers } from "../../support/audit";

const actor = { id: "u1", label: "admin@keyhook.test (platform_admin)" };

async function chain() {
  const entries = [];
  for await (const entry of readAuditChain()) entries.push(entry);
  return entries;
}

beforeEach(async () => {
  await asOwnerWithoutTriggers(
    "TRUNCATE audit_log, audit_checkpoints",
    `UPDATE audit_chain_head SET seq = 0, prev_hash = NULL, hash = decode(repeat('00', 32), 'hex')`,
  );
});

describe("the audit chain", () => {
  it("links every entry as the verifier computes it, whatever its details hold", async () => {
    const details = [
      undefined,
      { reason: "stolen laptop", n: 3, ratio: 0.1, big: 1e21, tiny: 1e-7, neg: -0 },
      { "€uro": "ünïcödé ☃ 𝄞", nested: { b: [1, "two", null, true], a: { z: 1, y: 2 } }, quote: '"\\\n\t' },
      { when: new Date("2026-01-02T03:04:05.678Z"), dropped: undefined, list: [] },
    ];
    for (const [index, d] of details.entries())
      await recordAudit({
        actor,
        action: `test.${index}`,
        tenantId: index % 2 ? "district-1" : null,
        target: "t",
        outcome: "ok",
        details: d,
      });
    const entries = await chain();
    expect(entries.map((e) => e.seq)).toEqual(["1", "2", "3", "4"]);
    expect(entries[0]!.prev_hash).toBe(GENESIS_HASH);
    let prev = GENESIS_HASH;
    for (const entry of entries) {
      expect(entry.prev_hash).toBe(prev);
      expect(entry.hash).toBe(expectedHash(entry, prev));
      prev = entry.hash;
    }
    const verdict = await verifyAuditChain({ entries, checkpoints: [], publicKeys: null });
    expect(verdict).toMatchObject({ ok: true, entries: 4 });
  });

  it("gives concurrent writers one gapless order, and a rolled-back append its seq back", async () => {
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        // More writers than the pool has connections: they wait for one (maxWait), then queue on the head row.
        prisma.$transaction(
          async (tx) => {
            await tx.$executeRaw`SELECT pg_sleep(0.005 * ${i % 3})`;
            await recordAudit({ actor, action: "test.concurrent", target: String(i), outcome: "ok" }, tx);
          },
          { maxWait: 30_000, timeout: 30_000 },
        ),
      ),
    );
    await expect(
      prisma.$transaction(async (tx) => {
        await recordAudit({ actor, action: "test.rolled-back", outcome: "ok" }, tx);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await recordAudit({ actor, action: "test.after", outcome: "ok" });
    const entries = await chain();
    expect(entries.map((e) => Number(e.seq))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(entries.some((e) => e.action === "test.rolled-back")).toBe(false);
    expect(await verifyAuditChain({ entries, checkpoints: [], publicKeys: null })).toMatchObject({
      ok: true,
      entries: 25,
    });
  });

  it("refuses an entry without its content hash", async () => {
    await expect(
      prisma.$executeRaw`INSERT INTO audit_log (actor, action, outcome) VALUES ('x', 'y', 'ok')`,
    ).rejects.toThrow(/content_hash/);
  });

  it("seals entries written before the chain, and those written while they waited, into one chain", async () => {
    // As the migration leaves a database that had entries: numbered, no hashes, the head unsealed.
    await asOwnerWithoutTriggers(
      `INSERT INTO audit_log (at, actor, action, outcome, details, seq) VALUES
         ('2026-01-01T00:00:00Z', 'old@keyhook.test', 'key.revoke', 'ok', '{"previousStatus":"active","n":1.50}', 1),
         ('2026-01-02T00:00:00Z', 'old@keyhook.test', 'sign-in', 'denied', NULL, 2)`,
      `UPDATE audit_chain_head SET seq = 2, hash = NULL`,
    );
    await recordAudit({ actor, action: "test.waiting", outcome: "ok" });
    expect((await chain()).map((e) => e.hash)).toEqual(["", "", ""]);
    expect(await sealAuditChain()).toEqual({ sealed: 3 });
    await recordAudit({ actor, action: "test.after-seal", outcome: "ok" });
    const entries = await chain();
    expect(await verifyAuditChain({ entries, checkpoints: [], publicKeys: null })).toMatchObject({
      ok: true,
      entries: 4,
    });
    expect(await sealAuditChain()).toEqual({ sealed: 0 });
    // The seal's path fills hashes once; it changes nothing else, and nothing after.
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT set_config('keyhook.audit_sealing', 'on', true)`;
        await tx.$executeRaw`UPDATE audit_log SET outcome = 'ok' WHERE seq = 2`;
      }),
    ).rejects.toThrow(/append-only \(UPDATE refused\)/);
  });
});
