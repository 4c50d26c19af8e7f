// Verifies the audit chain (docs/audit.md): the entries in seq order against each other, against
// the signed checkpoints' pins (entry `seq` hashed to `head`; the entry before `first_seq` hashed to
// `first_prev`), and the checkpoints against the public keys and each other. Pure and streaming:
// `npm run audit:verify` feeds it an export's lines, the nightly check the live table's pages.
// The first break ends the walk; a window of the entries after it tells what kind of break it is.
import type { KeyObject } from "node:crypto";
import { contentHash, expectedHash, GENESIS_HASH, linkHash, type ChainedAuditEntry } from "./audit-hash";
import {
  checkpointHash,
  checkpointSignatureValid,
  parseCheckpointBody,
  type CheckpointBody,
  type SignedCheckpoint,
} from "./audit-checkpoint";

export const BREAK_KINDS = [
  "changed",
  "deleted",
  "reordered",
  "inserted",
  "truncated",
  "forged_checkpoint",
  "missing_checkpoint",
] as const;
type BreakKind = (typeof BREAK_KINDS)[number];

export type PublicKeyEntry = { id: string | null; key: KeyObject };

type Position = { seq: string; at: string };

export type ChainVerdict =
  | {
      ok: true;
      entries: number;
      first: Position | null;
      last: Position | null;
      /** The newest checkpoint the log was checked against. */
      checkpoint: { id: string; seq: string; at: string } | null;
      /** Entries after that checkpoint: chained, not signed yet. */
      unsigned: number;
      notes: string[];
    }
  | {
      ok: false;
      kind: BreakKind;
      /** The first bad entry (or the seq where one is missing); null for a checkpoint's break. */
      seq: string | null;
      entryId: string | null;
      checkpointId: string | null;
      message: string;
      /** The last entry verified before the break. */
      verifiedUpTo: Position | null;
      notes: string[];
    };

/** How many entries after a break are read to tell its kind. */
const WINDOW = 1_000;

type Checked = { id: string; body: CheckpointBody; text: string };

export async function verifyAuditChain(input: {
  entries: AsyncIterable<ChainedAuditEntry> | Iterable<ChainedAuditEntry>;
  checkpoints: SignedCheckpoint[];
  /** null: the checkpoints' signatures are not checked (said in the notes). */
  publicKeys: PublicKeyEntry[] | null;
}): Promise<ChainVerdict> {
  const notes: string[] = [];
  const fail = failWith(notes);
  const checkpoints = checkCheckpoints(input.checkpoints, input.publicKeys, notes, fail);
  if (!Array.isArray(checkpoints)) return checkpoints;
  const pins = pinsOf(checkpoints);
  if (checkpoints.length === 0) notes.push("no checkpoints: the entries were checked against each other only");
  const walk = await walkEntries(entryReader(input.entries), pins, notes, fail);
  if ("ok" in walk) return walk;
  return verdictAtEnd(walk, pins, notes, fail);
}

type BreakAt = { seq?: string | null; entryId?: string | null; checkpointId?: string | null; upTo?: Position | null };
type Fail = (kind: BreakKind, message: string, where: BreakAt) => ChainVerdict;

/** A break's verdict, carrying the notes gathered up to it. */
function failWith(notes: string[]): Fail {
  return (kind, message, where) => ({
    ok: false,
    kind,
    seq: where.seq ?? null,
    entryId: where.entryId ?? null,
    checkpointId: where.checkpointId ?? null,
    message,
    verifiedUpTo: where.upTo ?? null,
    notes,
  });
}

/** The checkpoints first: each signed by a key we hold, each following the one before it. */
function checkCheckpoints(
  signedCheckpoints: SignedCheckpoint[],
  publicKeys: PublicKeyEntry[] | null,
  notes: string[],
  fail: Fail,
): Checked[] | ChainVerdict {
  const checkpoints: Checked[] = [];
  if (publicKeys === null && signedCheckpoints.length > 0)
    notes.push("the checkpoints' signatures were not checked: give the public key (--public-key)");
  for (const signed of signedCheckpoints) {
    const body = parseCheckpointBody(signed.body);
    if (typeof body === "string")
      return fail("forged_checkpoint", `checkpoint ${signed.id} is not a checkpoint: ${body}`, {
        checkpointId: signed.id,
      });
    if (publicKeys !== null) {
      const candidates = publicKeys.filter((k) => k.id === null || k.id === body.key_id);
      if (!candidates.some((k) => checkpointSignatureValid(signed, k.key)))
        return fail(
          "forged_checkpoint",
          `checkpoint ${signed.id} (seq ${body.seq}, ${body.at}) is not signed by ${candidates.length ? `the key "${body.key_id}"` : `any key given (it names key "${body.key_id}")`}`,
          { checkpointId: signed.id },
        );
    }
    const before = checkpoints[checkpoints.length - 1];
    if (before) {
      if (body.previous !== checkpointHash(before.text))
        return fail(
          "missing_checkpoint",
          `checkpoint ${signed.id} does not follow checkpoint ${before.id}: a checkpoint between them was removed or replaced`,
          { checkpointId: signed.id },
        );
      if (BigInt(body.seq) < BigInt(before.body.seq) || BigInt(body.first_seq) < BigInt(before.body.first_seq))
        return fail("forged_checkpoint", `checkpoint ${signed.id} goes back behind checkpoint ${before.id}`, {
          checkpointId: signed.id,
        });
    }
    checkpoints.push({ id: signed.id, body, text: signed.body });
  }
  return checkpoints;
}

/** What the checked checkpoints pin down in the log. */
type Pins = {
  checkpoints: Checked[];
  /** By the seq of the entry whose hash the checkpoint signs (its head). */
  head: Map<string, Checked>;
  /** By the checkpoint's first seq: the hash before that entry is its first_prev. */
  prev: Map<string, Checked>;
  newest: Checked | null;
  /** Where the log must start: the highest first_seq of any checkpoint (0 without one). */
  boundary: bigint;
};

function pinsOf(checkpoints: Checked[]): Pins {
  const head = new Map<string, Checked>();
  const prev = new Map<string, Checked>();
  for (const checkpoint of checkpoints) {
    if (checkpoint.body.seq !== "0") head.set(checkpoint.body.seq, checkpoint);
    prev.set(checkpoint.body.first_seq, checkpoint);
  }
  return {
    checkpoints,
    head,
    prev,
    newest: checkpoints[checkpoints.length - 1] ?? null,
    boundary: checkpoints.reduce((max, c) => (BigInt(c.body.first_seq) > max ? BigInt(c.body.first_seq) : max), 0n),
  };
}

type EntryReader = {
  next: () => Promise<IteratorResult<ChainedAuditEntry>>;
  /** Up to WINDOW entries after the current one, to tell a break's kind. */
  window: () => Promise<ChainedAuditEntry[]>;
};

function entryReader(entries: AsyncIterable<ChainedAuditEntry> | Iterable<ChainedAuditEntry>): EntryReader {
  const iterator = (
    Symbol.asyncIterator in entries
      ? (entries as AsyncIterable<ChainedAuditEntry>)[Symbol.asyncIterator]()
      : (entries as Iterable<ChainedAuditEntry>)[Symbol.iterator]()
  ) as AsyncIterator<ChainedAuditEntry> | Iterator<ChainedAuditEntry>;
  const next = async () => (await iterator.next()) as IteratorResult<ChainedAuditEntry>;
  const window = async (): Promise<ChainedAuditEntry[]> => {
    const after: ChainedAuditEntry[] = [];
    while (after.length < WINDOW) {
      const item = await next();
      if (item.done) break;
      after.push(item.value);
    }
    return after;
  };
  return { next, window };
}

/** How far the walk has verified the log. */
type Walk = {
  /** The seq the next entry must have (null before the first). */
  expectedSeq: bigint | null;
  /** The hash the next entry must chain to. */
  prev: string;
  /** The last entry verified. */
  previous: ChainedAuditEntry | null;
  first: Position | null;
  count: number;
  /** The newest checkpoint whose head the walk has matched. */
  lastPin: Checked | null;
};

function upTo(walk: Walk): Position | null {
  return walk.previous ? { seq: walk.previous.seq, at: walk.previous.at } : null;
}

/** Every entry in order, each against the one before it and the checkpoints' pins; the first break ends the walk. */
async function walkEntries(reader: EntryReader, pins: Pins, notes: string[], fail: Fail): Promise<Walk | ChainVerdict> {
  const walk: Walk = { expectedSeq: null, prev: GENESIS_HASH, previous: null, first: null, count: 0, lastPin: null };
  for (;;) {
    const item = await reader.next();
    if (item.done) return walk;
    const entry = item.value;
    if (walk.expectedSeq === null) {
      const start = startOfLog(entry, pins, notes, fail);
      if ("ok" in start) return start;
      walk.expectedSeq = BigInt(entry.seq);
      walk.prev = start.prev;
      walk.first = { seq: entry.seq, at: entry.at };
    }
    const broken = seqBreak(entry, walk.expectedSeq, walk, fail) ?? prevPinBreak(entry, walk, pins, fail);
    if (broken) return broken;
    if (entry.prev_hash !== walk.prev || expectedHash(entry, walk.prev, entry.seq) !== entry.hash)
      return classify(entry, walk.prev, walk.expectedSeq, walk.previous, await reader.window(), fail, upTo(walk));
    const headBroken = headPinBreak(entry, walk, pins, fail);
    if (headBroken) return headBroken;
    walk.lastPin = pins.head.get(entry.seq) ?? walk.lastPin;
    walk.prev = entry.hash;
    walk.previous = entry;
    walk.expectedSeq = BigInt(entry.seq) + 1n;
    walk.count++;
  }
}

/**
 * The start: pinned by a checkpoint whose boundary is here, the genesis at seq 1, or else the
 * entry's own prev (a later checkpoint's head still pins everything it covers).
 */
function startOfLog(
  entry: ChainedAuditEntry,
  pins: Pins,
  notes: string[],
  fail: Fail,
): { prev: string } | ChainVerdict {
  const seq = BigInt(entry.seq);
  const { boundary } = pins;
  if (pins.checkpoints.length > 0 && seq > boundary)
    return fail(
      "deleted",
      `the log starts at seq ${entry.seq}, but checkpoint ${pins.checkpoints.find((c) => BigInt(c.body.first_seq) === boundary)!.id} says it starts at seq ${boundary}: entries ${boundary}–${seq - 1n} were deleted`,
      { seq: boundary.toString(), entryId: null, upTo: null },
    );
  const pin = pins.prev.get(entry.seq);
  if (pin) return { prev: pin.body.first_prev };
  if (seq === 1n) return { prev: GENESIS_HASH };
  notes.push(`the first entry (seq ${entry.seq}) is not a checkpoint's boundary: its prev_hash is taken as it is`);
  return { prev: entry.prev_hash };
}

/** An entry out of its place in the seq numbers: some deleted, one inserted, or the order changed. */
function seqBreak(entry: ChainedAuditEntry, expectedSeq: bigint, walk: Walk, fail: Fail): ChainVerdict | null {
  const seq = BigInt(entry.seq);
  if (seq === expectedSeq) return null;
  const { previous } = walk;
  if (seq > expectedSeq)
    return fail(
      "deleted",
      `entr${seq - expectedSeq === 1n ? "y" : "ies"} seq ${expectedSeq}${seq - expectedSeq > 1n ? `–${seq - 1n}` : ""} deleted: the log goes from seq ${previous?.seq} to seq ${entry.seq}`,
      { seq: expectedSeq.toString(), entryId: null, upTo: upTo(walk) },
    );
  return fail(
    seq === expectedSeq - 1n ? "inserted" : "reordered",
    seq === expectedSeq - 1n
      ? `entry ${entry.id} claims seq ${entry.seq}, which entry ${previous?.id} holds already`
      : `entry ${entry.id} (seq ${entry.seq}) comes after seq ${previous?.seq}`,
    { seq: entry.seq, entryId: entry.id, upTo: upTo(walk) },
  );
}

/** The chain before a checkpoint's boundary must end in the hash the checkpoint signed. */
function prevPinBreak(entry: ChainedAuditEntry, walk: Walk, pins: Pins, fail: Fail): ChainVerdict | null {
  const prevPin = pins.prev.get(entry.seq);
  if (!prevPin || prevPin.body.first_prev === walk.prev) return null;
  return fail(
    "changed",
    `the chain before seq ${entry.seq} does not match checkpoint ${prevPin.id}: entries before it were changed and the chain recomputed`,
    { seq: entry.seq, entryId: entry.id, checkpointId: prevPin.id, upTo: upTo(walk) },
  );
}

/** A checkpoint's head must be the hash of the entry at its seq. */
function headPinBreak(entry: ChainedAuditEntry, walk: Walk, pins: Pins, fail: Fail): ChainVerdict | null {
  const headPin = pins.head.get(entry.seq);
  if (!headPin || headPin.body.head === entry.hash) return null;
  return fail(
    "changed",
    `entry seq ${entry.seq} does not match checkpoint ${headPin.id} (signed ${headPin.body.at}): an entry after seq ${walk.lastPin?.body.seq ?? walk.first?.seq ?? "?"} and up to ${entry.seq} was changed, inserted or deleted, and the chain recomputed`,
    { seq: entry.seq, entryId: entry.id, checkpointId: headPin.id, upTo: upTo(walk) },
  );
}

/** The log must reach as far as the newest checkpoint signs; then it is intact. */
function verdictAtEnd(walk: Walk, pins: Pins, notes: string[], fail: Fail): ChainVerdict {
  const { previous, lastPin, count } = walk;
  const { newest } = pins;
  const lastSeq = previous ? BigInt(previous.seq) : null;
  const signedUpTo = newest ? BigInt(newest.body.seq) : 0n;
  if (newest && signedUpTo > 0n && (lastSeq === null || lastSeq < signedUpTo))
    return fail(
      "truncated",
      `the log ends at ${previous ? `seq ${previous.seq}` : "nothing"}, but checkpoint ${newest.id} (signed ${newest.body.at}) covers entries up to seq ${signedUpTo}: the entries after ${previous?.seq ?? "it"} were deleted`,
      { seq: ((lastSeq ?? 0n) + 1n).toString(), checkpointId: newest.id, upTo: upTo(walk) },
    );
  if (newest && previous === null && newest.body.head !== walk.prev && signedUpTo === 0n)
    return fail("changed", `the empty log does not match checkpoint ${newest.id}`, { checkpointId: newest.id });
  return {
    ok: true,
    entries: count,
    first: walk.first,
    last: upTo(walk),
    checkpoint: lastPin ? { id: lastPin.id, seq: lastPin.body.seq, at: lastPin.body.at } : null,
    unsigned: lastPin && lastSeq !== null ? Number(lastSeq - BigInt(lastPin.body.seq)) : count,
    notes,
  };
}

/** What kind of break `entry` is, from the entries around it. */
function classify(
  entry: ChainedAuditEntry,
  prev: string,
  seq: bigint,
  previous: ChainedAuditEntry | null,
  after: ChainedAuditEntry[],
  fail: Fail,
  upTo: Position | null,
): ChainVerdict {
  const at = { seq: entry.seq, entryId: entry.id, upTo };
  if (entry.prev_hash === prev)
    return fail(
      "changed",
      `entry ${entry.id} (seq ${entry.seq}, ${entry.at}) was changed: its hash does not match what it says`,
      at,
    );
  // The entry that belongs here is further on: this one was moved here, or put here.
  const belongs = after.find((x) => x.prev_hash === prev && expectedHash(x, prev, seq.toString()) === x.hash);
  if (belongs) {
    const predecessor = [belongs, ...after].find((x) => x.hash === entry.prev_hash);
    return predecessor
      ? fail(
          "reordered",
          `entry ${entry.id} (seq ${entry.seq}) was moved: it belongs after entry ${predecessor.id}, and entry ${belongs.id} (now seq ${belongs.seq}) belongs at seq ${seq}`,
          at,
        )
      : fail(
          "inserted",
          `entry ${entry.id} (seq ${entry.seq}, ${entry.at}) is not part of the chain: it was inserted`,
          at,
        );
  }
  // A well-made entry put before this one: both claim the same predecessor.
  if (previous && entry.prev_hash === previous.prev_hash)
    return fail(
      "inserted",
      `entry ${previous.id} (seq ${previous.seq}, ${previous.at}) was inserted: it and entry ${entry.id} both follow seq ${BigInt(previous.seq) - 1n}`,
      { seq: previous.seq, entryId: previous.id, upTo },
    );
  // The entry is intact but sits where another one was: the ones before it were deleted and the
  // seq numbers closed up.
  const content = contentHash(entry);
  for (let gap = 1n; gap <= 1000n; gap++) {
    if (
      linkHash({ at: entry.at, content, id: entry.id, prev: entry.prev_hash, seq: (seq + gap).toString() }) ===
      entry.hash
    )
      return fail(
        "deleted",
        `${gap === 1n ? "an entry" : `${gap} entries`} before entry ${entry.id} (seq ${entry.seq}) were deleted and the seq numbers closed up`,
        at,
      );
  }
  return fail(
    "changed",
    `entry ${entry.id} (seq ${entry.seq}, ${entry.at}) was changed: it does not follow seq ${seq - 1n}`,
    at,
  );
}
