import "server-only";
// The nightly check (docs/audit.md): the live audit log, in one snapshot, against the checkpoints
// kept and the configured public keys, by the same verifier `npm run audit:verify` runs on an
// export. The verdict is kept (the Audit log page shows it) and a break raises the platform-wide
// audit_chain_broken alert, which the notifier sends to every channel; a clean run resolves it.
import { prisma, type Db, type DbOrTx } from "../../core/db/client";
import { readAuditChain, readAuditCheckpoints } from "../../core/audit/read-audit-chain";
import { verifyAuditChain, type ChainVerdict } from "../../core/audit/verify-audit-chain";
import { auditSigningKeys } from "../../core/audit/audit-signing-key";
import { createPublicKey } from "node:crypto";
import { Prisma } from "../../generated/prisma/client";
import { raiseAlert, resolveAlerts } from "../alerts/upsert-alert";

const VERIFICATION_SETTING = "audit.verification";
const CHAIN_ALERT_SUBJECT = "audit_log";

export type StoredVerification = { at: string; verdict: ChainVerdict };

export async function verifyLiveAuditLog(options: { now?: Date } = {}, db: Db = prisma): Promise<ChainVerdict> {
  const now = options.now ?? new Date();
  const publicKeys = auditSigningKeys().map((k) => ({ id: k.id, key: createPublicKey(k.privateKey) }));
  const verdict = await db.$transaction(
    async (tx) =>
      verifyAuditChain({ entries: readAuditChain(tx), checkpoints: await readAuditCheckpoints(tx), publicKeys }),
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: 3_600_000 },
  );
  const stored: StoredVerification = { at: now.toISOString(), verdict };
  await db.setting.upsert({
    where: { key: VERIFICATION_SETTING },
    create: { key: VERIFICATION_SETTING, value: stored as object, updatedBy: "audit check" },
    update: { value: stored as object, updatedAt: now, updatedBy: "audit check" },
  });
  if (verdict.ok) {
    await resolveAlerts({ kind: "audit_chain_broken", subjects: [CHAIN_ALERT_SUBJECT], now, by: "audit check" }, db);
  } else {
    await raiseAlert(
      {
        kind: "audit_chain_broken",
        subject: CHAIN_ALERT_SUBJECT,
        now,
        details: {
          break: verdict.kind,
          seq: verdict.seq,
          entry_id: verdict.entryId,
          checkpoint_id: verdict.checkpointId,
          message: verdict.message,
          verified_up_to: verdict.verifiedUpTo?.seq ?? null,
          fix: "someone changed the audit log outside the app: compare with the checkpoints your channels hold (docs/audit.md)",
        },
      },
      db,
    );
  }
  return verdict;
}

/** The last nightly verdict, for the Audit log page. */
export async function lastAuditVerification(db: DbOrTx = prisma): Promise<StoredVerification | null> {
  const row = await db.setting.findUnique({ where: { key: VERIFICATION_SETTING } });
  return row ? (row.value as unknown as StoredVerification) : null;
}
