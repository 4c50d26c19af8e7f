import { handleKeyWebhook } from "@/http/webhook/receive-key-webhook";

// The provider authenticates with its signature, not a session: no auth check here by design.
export const dynamic = "force-dynamic";

export const POST = handleKeyWebhook;
// Every other method gets 405 (Allow: POST) with a stored receipt (docs/design.md, invariant 5),
// not Next's bare 405 — nor its automatic OPTIONS (204, no receipt) or HEAD-from-GET, hence both
// are exported too.
export const GET = handleKeyWebhook;
export const HEAD = handleKeyWebhook;
export const OPTIONS = handleKeyWebhook;
export const PUT = handleKeyWebhook;
export const PATCH = handleKeyWebhook;
export const DELETE = handleKeyWebhook;
