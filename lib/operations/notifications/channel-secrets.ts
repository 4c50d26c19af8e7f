import "server-only";
// Which alert-channel columns hold secrets, sealed at rest (lib/core/secrets/secret-box.ts): the
// address (an incoming-webhook URL is itself a credential; recipients go along for one rule), the
// SMTP URL with its password, and the JSON channel's signing secret. Each sealed value is bound to
// its column and channel id.
import { prisma, type DbOrTx } from "../../core/db/client";
import type { EncryptionKey } from "../../core/config/encryption-keys";
import { encryptionKeys, openSecret, sealedKeyId, sealSecret, type SealContext } from "../../core/secrets/secret-box";

const SEALED_FIELDS = ["target", "smtpUrl", "secret"] as const;
type SealedField = (typeof SEALED_FIELDS)[number];
type ChannelSecrets = { target: string; smtpUrl: string | null; secret: string | null };

const context = (field: SealedField, channelId: string): SealContext => `alert_channels.${field}:${channelId}`;

function mapFields<T extends ChannelSecrets>(
  row: T,
  channelId: string,
  change: (value: string, context: SealContext) => string,
): T {
  const each = (field: SealedField) => {
    const value = row[field];
    return value === null ? null : change(value, context(field, channelId));
  };
  return { ...row, target: each("target")!, smtpUrl: each("smtpUrl"), secret: each("secret") };
}

export function sealChannelSecrets(
  channelId: string,
  fields: ChannelSecrets,
  keys: EncryptionKey[] = encryptionKeys(),
): ChannelSecrets {
  const { target, smtpUrl, secret } = mapFields(fields, channelId, (value, where) => sealSecret(value, where, keys));
  return { target, smtpUrl, secret };
}

/** The stored row with its secrets opened. Throws SecretKeyError when no configured key opens one. */
export function openChannelSecrets<T extends ChannelSecrets & { id: string }>(
  row: T,
  keys: EncryptionKey[] = encryptionKeys(),
): T {
  return mapFields(row, row.id, (value, where) => openSecret(value, where, keys));
}

/** Every stored value with what binds it and the key id it is sealed with (null: stored before encryption). */
export async function storedChannelSecrets(
  db: DbOrTx = prisma,
): Promise<{ channelId: string; context: SealContext; value: string; keyId: string | null }[]> {
  const rows = await db.alertChannel.findMany({ select: { id: true, target: true, smtpUrl: true, secret: true } });
  return rows.flatMap((row) =>
    SEALED_FIELDS.flatMap((field) => {
      const value = row[field];
      return value === null
        ? []
        : [{ channelId: row.id, context: context(field, row.id), value, keyId: sealedKeyId(value) }];
    }),
  );
}
