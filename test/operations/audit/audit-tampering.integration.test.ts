// Tampering with the audit log as the database owner could (every trigger off), case by case: the
// offline verifier (`npm run audit:verify` on the page's JSON-lines exports) and the nightly check
// (on the live table) each catch it, name the first bad entry and the kind of break; the nightly
// check raises the alert every channel hears of. An untouched log verifies, across a purge too.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateKeyPairSync } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "@/lib/core/db/client";
import type { Actor } from "@/lib/core/auth/actor";
import { recordAudit } from "@/lib/core/audit/record-audit";
import { contentHash, linkHash } from "@/lib/core/audit/audit-hash";
import { checkpointHash, CHECKPOINT_FORMAT, signCheckpoint } from "@/lib/core/audit/audit-checkpoint";
import { publishedAuditKeys } from "@/lib/core/audit/audit-signing-key";
import { readAuditChain } from "@/lib/core/audit/read-audit-chain";
import { auditChainLines, auditCheckpointLines } from "@/lib/views/audit/audit-chain-export";
import { checkpointAuditLog } from "@/lib/operations/audit/checkpoint-audit-log";
import { lastAuditVerification, verifyLiveAuditLog } from "@/lib/operations/audit/verify-live-audit-log";
import { runPurge } from "@/lib/operations/retention/run-purge";
import { runAuditVerify } from "@/scripts/audit-verify-run";
import { appendAuditAt, asOwnerWithoutTriggers } from "../../support/audit";

const admin: Actor = {
  id: "u-admin",
  email: "platform@keyhook.test",
  name: null,
  role: "platform_admin",
  tenantId: null,
};
const actor = { id: admin.id, label: "platform@keyhook.test (platform_admin)" };
const dir = mkdtempSync(path.join(tmpdir(), "keyhook-audit-"));

async function text(lines: AsyncIterable<string>): Promise<string> {
  let all = "";
  for await (const line of lines) all += line;
  return all;
}

/** Exports the log and its checkpoints as the Audit log page does, and runs the offline verifier on them. */
async function verifyOffline(): Promise<{ code: number; output: string }> {
  const chain = path.join(dir, "audit-chain.jsonl");
  const checkpoints = path.join(dir, "audit-checkpoints.jsonl");
  writeFileSync(chain, await text(auditChainLines({ actor: admin })));
  writeFileSync(checkpoints, await text(auditCheckpointLines({ actor: admin })));
  const [key] = publishedAuditKeys();
  return runAuditVerify([chain, "--checkpoints", checkpoints, "--public-key", `${key!.id}:${key!.public_key}`]);
}

async function entryAt(seq: number) {
  for await (const entry of readAuditChain()) if (entry.seq === String(seq)) return entry;
  throw new Error(`no entry ${seq}`);
}

/** 12 entries: 1–8 under checkpoint 1, 9–10 under checkpoint 2, 11–12 after it. */
async function writeLog(): Promise<void> {
  const add = (i: number) =>
    recordAudit({
      actor,
      action: i % 3 ? "key.revoke" : "sign-in",
      tenantId: "district-1",
      target: `key_${i}`,
      outcome: "ok",
      details: { i },
    });
  for (let i = 1; i <= 8; i++) await add(i);
  await checkpointAuditLog();
  for (let i = 9; i <= 10; i++) await add(i);
  await checkpointAuditLog();
  for (let i = 11; i <= 12; i++) await add(i);
}

async function expectCaught(kind: string, seq: string | null, message: RegExp) {
  const offline = await verifyOffline();
  expect(offline.output).toMatch(new RegExp(`^broken: ${kind}${seq ? ` at seq ${seq}\\b` : ""}`));
  expect(offline.output).toMatch(message);
  expect(offline.code).toBe(1);
  const live = await verifyLiveAuditLog();
  expect(live).toMatchObject({ ok: false, kind, ...(seq ? { seq } : {}) });
  const alert = await prisma.alert.findUnique({
    where: { kind_subject: { kind: "audit_chain_broken", subject: "audit_log" } },
  });
  expect(alert).toMatchObject({ state: "open", tenantId: null, details: expect.objectContaining({ break: kind }) });
  expect((await lastAuditVerification())?.verdict).toMatchObject({ ok: false, kind });
}

beforeEach(async () => {
  await asOwnerWithoutTriggers(
    "TRUNCATE audit_log, audit_checkpoints, alerts, settings, outbox CASCADE",
    `UPDATE audit_chain_head SET seq = 0, prev_hash = NULL, hash = decode(repeat('00', 32), 'hex')`,
  );
  await writeLog();
});

describe("an untouched audit log", () => {
  it("verifies offline and live, up to the newest checkpoint, with the unsigned tail said", async () => {
    const offline = await verifyOffline();
    expect(offline.output).toMatch(
      /^verified: 12 entries, from seq 1 \(.+\) to seq 12 \(.+\), up to checkpoint \d+ signed at .+ \(2 later entries chained, not signed yet\)$/,
    );
    expect(offline.code).toBe(0);
    expect(await verifyLiveAuditLog()).toMatchObject({ ok: true, entries: 12, unsigned: 2 });
  });

  it("verifies across a purge: the purge signs a checkpoint at the new start", async () => {
    const old = new Date(Date.now() - 500 * 86_400_000);
    await asOwnerWithoutTriggers(
      "TRUNCATE audit_log, audit_checkpoints",
      `UPDATE audit_chain_head SET seq = 0, prev_hash = NULL, hash = decode(repeat('00', 32), 'hex')`,
    );
    for (let i = 1; i <= 6; i++) await appendAuditAt(old, { target: `old_${i}` });
    await checkpointAuditLog();
    for (let i = 7; i <= 9; i++) await appendAuditAt(new Date(), { target: `new_${i}` });
    await runPurge({ trigger: "manual" });
    const entries = [];
    for await (const entry of readAuditChain()) entries.push(entry);
    expect(entries.map((e) => e.seq)).toEqual(["7", "8", "9", "10"]);
    expect(entries[3]).toMatchObject({
      action: "audit.purge",
      details: expect.objectContaining({ deleted: 6, from_seq: "1", to_seq: "6" }),
    });
    const purgeCheckpoint = await prisma.auditCheckpoint.findFirstOrThrow({ where: { reason: "purge" } });
    expect(purgeCheckpoint).toMatchObject({ firstSeq: 7n, seq: 10n });
    const offline = await verifyOffline();
    expect(offline.output).toMatch(/^verified: 4 entries, from seq 7 .* up to checkpoint \d+ signed at /);
    expect(offline.code).toBe(0);
    expect(await verifyLiveAuditLog()).toMatchObject({ ok: true, entries: 4, unsigned: 0 });
  });
});

describe("tampering as the database owner", () => {
  it("a changed entry", async () => {
    await asOwnerWithoutTriggers(`UPDATE audit_log SET outcome = 'denied' WHERE seq = 5`);
    await expectCaught("changed", "5", /entry \d+ \(seq 5, .+\) was changed/);
  });

  it("a changed entry with the chain recomputed after it: caught by the checkpoint it crosses", async () => {
    await asOwnerWithoutTriggers(`UPDATE audit_log SET outcome = 'denied' WHERE seq = 5`);
    let prev = (await entryAt(4)).hash;
    for (let seq = 5; seq <= 12; seq++) {
      const entry = await entryAt(seq);
      const hash = linkHash({ at: entry.at, content: contentHash(entry), id: entry.id, prev, seq: entry.seq });
      await asOwnerWithoutTriggers(
        `UPDATE audit_log SET content_hash = decode('${contentHash(entry)}', 'hex'), prev_hash = decode('${prev}', 'hex'), hash = decode('${hash}', 'hex') WHERE seq = ${seq}`,
      );
      prev = hash;
    }
    await expectCaught(
      "changed",
      "8",
      /does not match checkpoint \d+ .*after seq .* and up to 8 was changed, inserted or deleted, and the chain recomputed/,
    );
  });

  it("a deleted entry", async () => {
    await asOwnerWithoutTriggers(`DELETE FROM audit_log WHERE seq = 5`);
    await expectCaught("deleted", "5", /entry seq 5 deleted: the log goes from seq 4 to seq 6/);
  });

  it("two entries swapped in order", async () => {
    await asOwnerWithoutTriggers(
      `UPDATE audit_log SET seq = -5 WHERE seq = 5`,
      `UPDATE audit_log SET seq = 5 WHERE seq = 6`,
      `UPDATE audit_log SET seq = 6 WHERE seq = -5`,
    );
    await expectCaught("reordered", "5", /was moved: it belongs after entry \d+/);
  });

  it("an entry inserted, with its hash made the way the chain makes them", async () => {
    const before = await entryAt(4);
    await asOwnerWithoutTriggers(
      `UPDATE audit_log SET seq = seq + 1000 WHERE seq >= 5`,
      `UPDATE audit_log SET seq = seq - 999 WHERE seq >= 1000`,
    );
    const forged = {
      actor_id: null,
      actor: "nobody",
      action: "key.issue",
      tenant_id: null,
      target: "x",
      outcome: "ok",
      details: null,
    };
    const content = contentHash(forged);
    const at = "2026-06-01T00:00:00.000Z";
    const hash = linkHash({ at, content, id: "999", prev: before.hash, seq: "5" });
    await asOwnerWithoutTriggers(
      `INSERT INTO audit_log (id, at, actor, action, target, outcome, seq, content_hash, prev_hash, hash)
       VALUES (999, '${at}', 'nobody', 'key.issue', 'x', 'ok', 5, decode('${content}', 'hex'), decode('${before.hash}', 'hex'), decode('${hash}', 'hex'))`,
    );
    await expectCaught("inserted", "5", /entry 999 \(seq 5, .+\) was inserted/);
  });

  it("an entry inserted with a made-up hash", async () => {
    await asOwnerWithoutTriggers(
      `UPDATE audit_log SET seq = seq + 1000 WHERE seq >= 5`,
      `UPDATE audit_log SET seq = seq - 999 WHERE seq >= 1000`,
      `INSERT INTO audit_log (id, at, actor, action, outcome, seq, content_hash, prev_hash, hash)
       VALUES (998, now(), 'nobody', 'key.issue', 'ok', 5, sha256('a'), sha256('b'), sha256('c'))`,
    );
    await expectCaught("inserted", "5", /entry 998 \(seq 5, .+\) is not part of the chain/);
  });

  it("the tail cut off behind the newest checkpoint", async () => {
    await asOwnerWithoutTriggers(`DELETE FROM audit_log WHERE seq >= 9`);
    await expectCaught("truncated", "9", /the log ends at seq 8, but checkpoint \d+ .* covers entries up to seq 10/);
  });

  it("a checkpoint not signed by the key", async () => {
    const last = await prisma.auditCheckpoint.findFirstOrThrow({ orderBy: { id: "desc" } });
    const { privateKey } = generateKeyPairSync("ed25519");
    const head = await entryAt(12);
    const signed = signCheckpoint(
      {
        format: CHECKPOINT_FORMAT,
        reason: "hourly",
        at: new Date().toISOString(),
        seq: "12",
        head: head.hash,
        first_seq: "1",
        first_prev: "0".repeat(64),
        previous: checkpointHash(last.body),
        key_id: last.keyId,
      },
      privateKey,
    );
    await prisma.auditCheckpoint.create({
      data: { at: new Date(), reason: "hourly", seq: 12n, firstSeq: 1n, head: head.hash, keyId: last.keyId, ...signed },
    });
    await expectCaught("forged_checkpoint", null, /checkpoint \d+ \(seq 12, .+\) is not signed by the key/);
  });
});
