// The client address a sign-in is throttled by. With TRUSTED_PROXY_HOPS = N > 0 our own proxies
// append to x-forwarded-for, so the N-th entry from the right is the address the outermost one
// saw (anything left of it the client may have written). With 0, `next start` fills
// x-forwarded-for from the socket only when the client sent none (Next 16 route handlers see no
// socket), so the last entry is the socket's address or a value the client chose: the
// per-address throttle is then best effort, while the per-account throttle and the bounded hash
// queue hold whatever the client sends. Run behind a proxy that sets the header in production.
export function clientAddress(forwardedFor: string | string[] | null | undefined, trustedHops: number): string {
  const raw = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const entries = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const index = entries.length - Math.max(trustedHops, 1);
  const address = entries[Math.max(index, 0)] ?? "unknown";
  // Bounded and normalised: it becomes a row key and an audit subject.
  return address.replace(/^::ffff:/, "").slice(0, 64) || "unknown";
}
