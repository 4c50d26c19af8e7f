// `npm run audit:verify -- <export> [--checkpoints <file>] [--public-key <key>]…`: the offline
// verifier of the audit log (scripts/audit-verify-run.ts; docs/audit.md). Exit 0 verified, 1 broken,
// 2 bad input.
import { runAuditVerify } from "./audit-verify-run";

const { code, output } = await runAuditVerify(process.argv.slice(2));
(code === 2 ? process.stderr : process.stdout).write(output + "\n");
process.exitCode = code;
