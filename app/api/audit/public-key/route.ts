import { publishedAuditKeys } from "@/lib/core/audit/audit-signing-key";

// The audit checkpoints' public keys, unauthenticated on purpose (docs/audit.md): anyone holding
// an export and its checkpoints can check them with `npm run audit:verify -- … --public-key <key>`.
// Nothing private: the raw Ed25519 public halves of AUDIT_SIGNING_KEY, the signing one first.
export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json({ keys: publishedAuditKeys() }, { headers: { "cache-control": "no-store" } });
}
