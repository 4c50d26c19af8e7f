// The metrics endpoint is protected by a bearer token from configuration (METRICS_TOKEN).
import { timingSafeEqual } from "node:crypto";

export type ScrapeVerdict = "allowed" | "not_configured" | "denied";

export function authorizeScrape(authorization: string | null, token: string | undefined): ScrapeVerdict {
  if (!token) return "not_configured";
  const presented = Buffer.from(authorization?.replace(/^Bearer\s+/i, "") ?? "");
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? "allowed" : "denied";
}
