// What `npm run audit:verify -- <export> [--checkpoints <file>] [--public-key <key>]…` does,
// as a function of its arguments (scripts/audit-verify.ts runs it; the tests call it): read the
// Audit log's JSON-lines export and its checkpoints, verify them with the public key(s), and say
// "verified …" (exit 0), where the chain breaks (exit 1), or what is wrong with the input (exit 2).
// No database, no server, no settings: only the files and the key (docs/audit.md).
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { ChainedAuditEntry } from "../lib/core/audit/audit-hash";
import { publicKeyFromRaw, type SignedCheckpoint } from "../lib/core/audit/audit-checkpoint";
import { verifyAuditChain, type PublicKeyEntry } from "../lib/core/audit/verify-audit-chain";

export const USAGE =
  "usage: npm run audit:verify -- <audit-chain.jsonl> [--checkpoints <audit-checkpoints.jsonl>] [--public-key <[id:]base64>]…";

export type VerifyRun = { code: 0 | 1 | 2; output: string };

class BadInput extends Error {}

const HEX64 = /^[0-9a-f]{64}$/;
const DIGITS = /^[1-9][0-9]{0,18}$/;

export async function runAuditVerify(argv: string[]): Promise<VerifyRun> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { checkpoints: { type: "string" }, "public-key": { type: "string", multiple: true } },
    });
  } catch (error) {
    return { code: 2, output: `${error instanceof Error ? error.message : String(error)}\n${USAGE}` };
  }
  const [file, ...extra] = args.positionals;
  if (!file || extra.length > 0) return { code: 2, output: USAGE };
  try {
    const publicKeys = (args.values["public-key"] ?? []).map(parsePublicKey);
    const checkpoints = args.values.checkpoints ? await readCheckpoints(args.values.checkpoints) : [];
    await readFile(file, { flag: "r" }).catch(() => {
      throw new BadInput(`cannot read ${file}`);
    });
    const verdict = await verifyAuditChain({
      entries: readEntries(file),
      checkpoints,
      publicKeys: publicKeys.length > 0 ? publicKeys : null,
    });
    const notes = verdict.notes.map((note) => `note: ${note}`);
    if (verdict.ok) {
      const range =
        verdict.first && verdict.last
          ? `, from seq ${verdict.first.seq} (${verdict.first.at}) to seq ${verdict.last.seq} (${verdict.last.at})`
          : "";
      const signed = verdict.checkpoint
        ? `, up to checkpoint ${verdict.checkpoint.id} signed at ${verdict.checkpoint.at}${verdict.unsigned > 0 ? ` (${verdict.unsigned} later entr${verdict.unsigned === 1 ? "y" : "ies"} chained, not signed yet)` : ""}`
        : ", no checkpoint covers them";
      return { code: 0, output: [`verified: ${verdict.entries} entries${range}${signed}`, ...notes].join("\n") };
    }
    const where = verdict.seq ? ` at seq ${verdict.seq}${verdict.entryId ? ` (entry ${verdict.entryId})` : ""}` : "";
    const upTo = verdict.verifiedUpTo
      ? `verified up to seq ${verdict.verifiedUpTo.seq} (${verdict.verifiedUpTo.at})`
      : "nothing verified";
    return {
      code: 1,
      output: [`broken: ${verdict.kind}${where}: ${verdict.message}`, upTo, ...notes].join("\n"),
    };
  } catch (error) {
    if (error instanceof BadInput) return { code: 2, output: error.message };
    throw error;
  }
}

function parsePublicKey(value: string): PublicKeyEntry {
  const colon = value.indexOf(":");
  const id = colon > 0 ? value.slice(0, colon) : null;
  const encoded = colon > 0 ? value.slice(colon + 1) : value;
  const raw = Buffer.from(encoded, "base64");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || raw.length !== 32)
    throw new BadInput(`--public-key must be [id:]base64 of a 32-byte Ed25519 public key (GET /api/audit/public-key)`);
  return { id, key: publicKeyFromRaw(raw) };
}

async function* lines(file: string): AsyncGenerator<{ line: number; text: string }> {
  const reader = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  let line = 0;
  for await (const text of reader) {
    line++;
    if (text.trim() !== "") yield { line, text };
  }
}

function parseLine(file: string, line: number, text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new BadInput(`${file} line ${line}: not a JSON object`);
}

async function* readEntries(file: string): AsyncGenerator<ChainedAuditEntry> {
  for await (const { line, text } of lines(file)) {
    const value = parseLine(file, line, text);
    const bad = (field: string) => new BadInput(`${file} line ${line}: ${field} is missing or malformed`);
    for (const field of ["id", "seq"])
      if (typeof value[field] !== "string" || !DIGITS.test(value[field])) throw bad(field);
    if (typeof value.at !== "string" || Number.isNaN(Date.parse(value.at))) throw bad("at");
    for (const field of ["prev_hash", "hash"])
      if (typeof value[field] !== "string" || !(HEX64.test(value[field]) || value[field] === "")) throw bad(field);
    for (const field of ["actor", "action", "outcome"]) if (typeof value[field] !== "string") throw bad(field);
    for (const field of ["actor_id", "tenant_id", "target"])
      if (value[field] !== null && typeof value[field] !== "string") throw bad(field);
    if (!("details" in value)) throw bad("details");
    yield value as unknown as ChainedAuditEntry;
  }
}

async function readCheckpoints(file: string): Promise<SignedCheckpoint[]> {
  await readFile(file).catch(() => {
    throw new BadInput(`cannot read ${file}`);
  });
  const checkpoints: SignedCheckpoint[] = [];
  for await (const { line, text } of lines(file)) {
    const value = parseLine(file, line, text);
    if (typeof value.id !== "string" || typeof value.body !== "string" || typeof value.signature !== "string")
      throw new BadInput(`${file} line ${line}: a checkpoint is {"id", "body", "signature"}`);
    checkpoints.push({ id: value.id, body: value.body, signature: value.signature });
  }
  return checkpoints;
}
