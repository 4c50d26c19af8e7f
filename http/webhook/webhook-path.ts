// Whether a request line's target is the webhook route's (lib/core/config/webhook-url.ts): a query
// string or a trailing slash name the same route. The production server answers it on its fast
// path and stores receipts of parser refusals to it (server/).
import { WEBHOOK_PATH } from "@/lib/core/config/webhook-url";

export function isWebhookPath(target: string | undefined): boolean {
  if (!target) return false;
  return target.split("?")[0]!.replace(/\/+$/, "") === WEBHOOK_PATH;
}
