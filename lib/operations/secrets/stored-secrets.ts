import "server-only";
// The secrets at rest as a whole: what opens them (checked by every process at start, so a
// missing or wrong key is one line then, not a failed send later) and the rotation that
// re-seals them under the newest key (`npm run secrets -- rotate`).
import { prisma, type Db, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { openChannelSecrets, sealChannelSecrets, storedChannelSecrets } from "../notifications/channel-secrets";
import type { EncryptionKey } from "../../core/config/encryption-keys";
import { encryptionKeys, openSecret, sealedKeyId, sealSecret, SecretKeyError } from "../../core/secrets/secret-box";
import { totpSealContext } from "../../core/auth/mfa/totp";

/** Every sealed value: the alert channels' secrets and the authenticator-app keys of second factors. */
async function storedSecrets(db: DbOrTx) {
  const totp = await db.mfaFactor.findMany({
    where: { kind: "totp", totpSecret: { not: null } },
    select: { id: true, totpSecret: true },
  });
  return [
    ...(await storedChannelSecrets(db)).map((v) => ({ ...v, factorId: null as string | null })),
    ...totp.map((row) => ({
      channelId: null as string | null,
      factorId: row.id,
      context: totpSealContext(row.id),
      value: row.totpSecret!,
      keyId: sealedKeyId(row.totpSecret!),
    })),
  ];
}

type SecretsInventory = {
  total: number;
  /** Written before encryption existed: readable, sealed by the next rotation. */
  clear: number;
  /** Values per key id. */
  byKey: Record<string, number>;
};

function keyProblem(error: SecretKeyError, count: number): AppError {
  const what = `${count} stored secret(s) are sealed with key "${error.keyId}"`;
  return new AppError(
    "invalid_setting",
    error.problem === "unknown_key"
      ? `invalid setting SECRETS_ENCRYPTION_KEYS: ${what}, which it does not hold (keep a key until \`npm run secrets -- rotate\` has re-sealed what it sealed)`
      : `invalid setting SECRETS_ENCRYPTION_KEYS: ${what}, and its key "${error.keyId}" does not open them (not the key that sealed them)`,
  );
}

/** Opens every stored secret with the configured keys; an AppError naming the setting when one does not open. */
export async function checkStoredSecrets(
  options: { keys?: EncryptionKey[] } = {},
  db: DbOrTx = prisma,
): Promise<SecretsInventory> {
  const keys = options.keys ?? encryptionKeys();
  const stored = await storedSecrets(db);
  const inventory: SecretsInventory = { total: stored.length, clear: 0, byKey: {} };
  for (const value of stored) {
    if (value.keyId === null) inventory.clear++;
    else inventory.byKey[value.keyId] = (inventory.byKey[value.keyId] ?? 0) + 1;
  }
  for (const value of stored) {
    try {
      openSecret(value.value, value.context, keys);
    } catch (error) {
      if (!(error instanceof SecretKeyError)) throw error;
      throw keyProblem(error, stored.filter((other) => other.keyId === error.keyId).length);
    }
  }
  return inventory;
}

/** Re-seals every stored secret that is not under the newest key (or not sealed at all). */
export async function rotateStoredSecrets(
  options: { keys?: EncryptionKey[] } = {},
  db: Db = prisma,
): Promise<{ resealed: number; before: SecretsInventory; after: SecretsInventory }> {
  const keys = options.keys ?? encryptionKeys();
  const before = await checkStoredSecrets({ keys }, db);
  const newest = keys[0]!.id;
  const staleValues = (await storedSecrets(db)).filter((v) => v.keyId !== newest);
  const stale = new Set(staleValues.flatMap((v) => (v.channelId ? [v.channelId] : [])));
  let resealed = 0;
  for (const id of stale) {
    await db.$transaction(async (tx) => {
      const row = await tx.alertChannel.findUnique({
        where: { id },
        select: { id: true, target: true, smtpUrl: true, secret: true },
      });
      if (!row) return; // deleted meanwhile
      const opened = openChannelSecrets(row, keys);
      await tx.alertChannel.update({ where: { id }, data: sealChannelSecrets(id, opened, keys) });
      resealed++;
    });
  }
  for (const value of staleValues) {
    if (!value.factorId) continue;
    const factorId = value.factorId;
    await db.$transaction(async (tx) => {
      const row = await tx.mfaFactor.findUnique({ where: { id: factorId }, select: { totpSecret: true } });
      if (!row?.totpSecret) return; // removed meanwhile
      const context = totpSealContext(factorId);
      const sealed = sealSecret(openSecret(row.totpSecret, context, keys), context, keys);
      await tx.mfaFactor.update({ where: { id: factorId }, data: { totpSecret: sealed } });
      resealed++;
    });
  }
  return { resealed, before, after: await checkStoredSecrets({ keys }, db) };
}
