// How channel addresses appear on a page: enough to recognise one, never enough to use it. An
// incoming-webhook URL is itself the credential (its path is the token), an SMTP URL may carry a
// password, and a signing secret is only ever shown by fingerprint.
import { secretFingerprint } from "../../core/ingest/secret-fingerprint";

/** scheme://host/…last4 */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const rest = `${url.pathname}${url.search}`;
    const tail = rest.length > 1 ? `/…${rest.slice(-4)}` : "";
    return `${url.protocol}//${url.host}${tail}`;
  } catch {
    return "(unreadable URL)";
  }
}

/** smtp://user:•••@host:port — the user shown, the password never. */
export function maskSmtpUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const user = url.username ? `${decodeURIComponent(url.username)}${url.password ? ":•••" : ""}@` : "";
    return `${url.protocol}//${user}${url.host}`;
  } catch {
    return "(unreadable URL)";
  }
}

export function maskSecret(secret: string): string {
  return `whsec_… (fingerprint ${secretFingerprint(secret)})`;
}
