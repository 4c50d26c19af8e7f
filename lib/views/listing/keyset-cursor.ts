// An opaque keyset cursor over (time, id) descending: the position after the last row shown.
// Keyset (not OFFSET) so page 10,000 costs the same as page 1 on a million-row table.
export type KeysetCursor = { at: Date; id: bigint };

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(`${cursor.at.toISOString()}|${cursor.id}`).toString("base64url");
}

/** Undefined for a missing or tampered cursor: the list then starts from the top. */
export function decodeCursor(raw: string | undefined | null): KeysetCursor | undefined {
  if (!raw || raw.length > 200) return undefined;
  const [at, id] = Buffer.from(raw, "base64url").toString("utf8").split("|");
  if (!at || !id || !/^\d{1,19}$/.test(id)) return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : { at: date, id: BigInt(id) };
}

/** The same over (time, text id) descending: for lists keyed by a text id (keys). */
export type TextKeysetCursor = { at: Date; key: string };

export function encodeTextCursor(cursor: TextKeysetCursor): string {
  return Buffer.from(`${cursor.at.toISOString()}|${cursor.key}`).toString("base64url");
}

/** Undefined for a missing or tampered cursor: the list then starts from the top. */
export function decodeTextCursor(raw: string | undefined | null): TextKeysetCursor | undefined {
  if (!raw || raw.length > 400) return undefined;
  const text = Buffer.from(raw, "base64url").toString("utf8");
  const split = text.indexOf("|");
  const at = new Date(text.slice(0, split));
  const key = text.slice(split + 1);
  if (split < 1 || !key || Number.isNaN(at.getTime())) return undefined;
  return { at, key };
}
