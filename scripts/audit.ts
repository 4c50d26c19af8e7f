// `npm run audit -- new-key [id]`: prints a fresh AUDIT_SIGNING_KEY entry (id:base64 of a 32-byte
// Ed25519 private key) and its public key. Rotating it: docs/audit.md.
// `npm run audit -- checkpoint`: seals and signs a checkpoint of the audit chain now (the worker
// does hourly). `npm run audit -- verify`: the nightly check now; exit 1 when the log does not
// verify. Both for operators and for the browser tests (which run no worker), on DATABASE_URL or,
// when it is unset, on the embedded PostgreSQL in .data/postgres, like `npm run purge`.
import { randomBytes } from "node:crypto";
import { privateKeyFromSeed, rawPublicKey } from "../lib/core/audit/audit-checkpoint";
import { openScriptDatabase } from "../tooling/script-database";

function fail(message: string, code = 1): never {
  process.stderr.write(`keyhook: ${message}\n`);
  process.exit(code);
}

const [command, idArgument] = process.argv.slice(2);
if (command === "new-key") {
  const id = idArgument ?? `a${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) fail("the key id must be 1-32 letters, digits, - or _", 2);
  const seed = randomBytes(32);
  console.log(`AUDIT_SIGNING_KEY entry: ${id}:${seed.toString("base64")}`);
  console.log(`public key (publish it): ${id}:${rawPublicKey(privateKeyFromSeed(seed))}`);
  process.exit(0);
}
if (command !== "checkpoint" && command !== "verify")
  fail("usage: npm run audit -- new-key [id] | checkpoint | verify", 2);

const { stop: stopDatabase, disconnectDb } = await openScriptDatabase(fail);
let exitCode = 1;
try {
  if (command === "checkpoint") {
    const { checkpointAuditLog } = await import("../lib/operations/audit/checkpoint-audit-log");
    const result = await checkpointAuditLog({ reason: "manual" });
    console.log(
      `checkpoint ${result.checkpointId} signed (${result.sealed} entries sealed, ${result.staged} copies staged for channels)`,
    );
    exitCode = 0;
  } else {
    const { verifyLiveAuditLog } = await import("../lib/operations/audit/verify-live-audit-log");
    const verdict = await verifyLiveAuditLog();
    console.log(
      verdict.ok
        ? `verified: ${verdict.entries} entries, up to seq ${verdict.last?.seq ?? 0}`
        : `broken: ${verdict.kind}${verdict.seq ? ` at seq ${verdict.seq}` : ""}: ${verdict.message}`,
    );
    exitCode = verdict.ok ? 0 : 1;
  }
} catch (error) {
  process.stderr.write(`keyhook: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  await disconnectDb();
  await stopDatabase();
}
process.exit(exitCode);
