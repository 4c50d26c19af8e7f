// The webhook's one path: the route file sits there, and the production server's fast path (and
// its receipts of parser refusals) know a query string or a trailing slash as the same route.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isWebhookPath } from "@/http/webhook/webhook-path";
import { WEBHOOK_PATH } from "@/lib/core/config/webhook-url";

describe("the webhook path", () => {
  it("is where the route handler is", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    expect(existsSync(path.join(root, "app", ...WEBHOOK_PATH.split("/").filter(Boolean), "route.ts"))).toBe(true);
  });

  it("matches with a query string or a trailing slash, and nothing else", () => {
    for (const target of [WEBHOOK_PATH, `${WEBHOOK_PATH}?source=provider`, `${WEBHOOK_PATH}/`, `${WEBHOOK_PATH}/?a=1`])
      expect(isWebhookPath(target), target).toBe(true);
    for (const target of ["/api/webhooks", `${WEBHOOK_PATH}x`, `${WEBHOOK_PATH}/extra`, "/", undefined])
      expect(isWebhookPath(target), String(target)).toBe(false);
  });
});
