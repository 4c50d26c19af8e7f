// A machine's bearer token against the configured one: compared in constant time whatever either
// length (both sides are hashed to 32 bytes first), and an empty token never matches.
import { createHash, timingSafeEqual } from "node:crypto";

export function bearerMatches(authorization: string | null, expected: string): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(token), digest(expected)) && token.length > 0 && expected.length > 0;
}
