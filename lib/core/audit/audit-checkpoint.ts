// Signed checkpoints of the audit chain (docs/audit.md), as pure functions: the worker signs them,
// the offline verifier and the nightly check verify them. A checkpoint says "the chain held the
// entries first_seq..seq, the entry before first_seq hashed to first_prev, entry seq hashed to
// head", chained to the checkpoint before it by that one's hash, and signed with Ed25519 over its
// RFC 8785 JSON. No imports beyond node:crypto and `canonicalize` (npm run audit:verify needs no app).
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import canonicalize from "canonicalize";
import { sha256Hex } from "./audit-hash";

export const CHECKPOINT_FORMAT = "keyhook-audit-checkpoint/1";

export type CheckpointBody = {
  format: typeof CHECKPOINT_FORMAT;
  /** hourly | purge | manual */
  reason: string;
  at: string;
  /** The last entry's seq (0: an empty log). */
  seq: string;
  head: string;
  /** The first entry still kept, and the hash of the one before it (the purge's boundary). */
  first_seq: string;
  first_prev: string;
  /** sha256 of the previous checkpoint's body, or null for the first one. */
  previous: string | null;
  key_id: string;
};

/** One line of the checkpoints export: the body exactly as signed, and its signature (base64). */
export type SignedCheckpoint = { id: string; body: string; signature: string };

function checkpointBodyText(body: CheckpointBody): string {
  const text = canonicalize(body);
  if (text === undefined) throw new Error("cannot encode the checkpoint");
  return text;
}

export function checkpointHash(bodyText: string): string {
  return sha256Hex(bodyText);
}

// An Ed25519 private key is its 32-byte seed; node:crypto takes it as PKCS 8 DER, which for
// Ed25519 is this fixed prefix and the seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function privateKeyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 private key is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error("an Ed25519 public key is 32 bytes");
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: "der", type: "spki" });
}

/** The raw 32 bytes of an Ed25519 public key, base64: how keys are published and passed around. */
export function rawPublicKey(key: KeyObject): string {
  const der = createPublicKey(key).export({ format: "der", type: "spki" });
  return der.subarray(der.length - 32).toString("base64");
}

export function signCheckpoint(body: CheckpointBody, key: KeyObject): { body: string; signature: string } {
  const text = checkpointBodyText(body);
  return { body: text, signature: sign(null, Buffer.from(text, "utf8"), key).toString("base64") };
}

export function checkpointSignatureValid(checkpoint: { body: string; signature: string }, key: KeyObject): boolean {
  const signature = Buffer.from(checkpoint.signature, "base64");
  if (signature.length !== 64) return false;
  return verify(null, Buffer.from(checkpoint.body, "utf8"), key, signature);
}

const HEX64 = /^[0-9a-f]{64}$/;
const DIGITS = /^(0|[1-9][0-9]{0,18})$/;

/** The body of a checkpoint as signed, or what is wrong with it. */
export function parseCheckpointBody(text: string): CheckpointBody | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "its body is not JSON";
  }
  const body = value as Partial<CheckpointBody> | null;
  if (!body || typeof body !== "object" || body.format !== CHECKPOINT_FORMAT)
    return `its body is not a ${CHECKPOINT_FORMAT}`;
  if (typeof body.seq !== "string" || !DIGITS.test(body.seq)) return "its seq is not a number";
  if (typeof body.first_seq !== "string" || !DIGITS.test(body.first_seq)) return "its first_seq is not a number";
  if (typeof body.head !== "string" || !HEX64.test(body.head)) return "its head is not a SHA-256 in hex";
  if (typeof body.first_prev !== "string" || !HEX64.test(body.first_prev))
    return "its first_prev is not a SHA-256 in hex";
  if (body.previous !== null && (typeof body.previous !== "string" || !HEX64.test(body.previous)))
    return "its previous is neither null nor a SHA-256 in hex";
  if (typeof body.at !== "string" || Number.isNaN(Date.parse(body.at))) return "its at is not a time";
  if (typeof body.key_id !== "string" || typeof body.reason !== "string") return "its key_id or reason is missing";
  return body as CheckpointBody;
}
