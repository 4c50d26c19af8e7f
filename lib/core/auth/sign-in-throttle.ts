// Sign-in throttling with exponential backoff, per account and per client address.
// Why it cannot be turned into a denial of service: the account is never locked for good. After
// FREE_ATTEMPTS consecutive failures each further failure closes the door for 1, 2, 4 … seconds,
// capped at MAX_LOCK_SECONDS, and attempts made while the door is closed are refused without
// counting, so an attacker hammering an address cannot push the wait beyond the cap. The real
// owner waits at most MAX_LOCK_SECONDS after the attacker's last try; a success resets the count.
//
// Why it holds under concurrency: every attempt first claims its check in ONE statement that both
// decides (is the door open?) and counts (failed_logins + 1, lock computed from the new count),
// before any password is hashed (claim-account-attempt.ts). A success then gives the count back.
// So 25 simultaneous guesses get exactly as many checks as the backoff allows, never more.
export const FREE_ATTEMPTS = 5;
export const MAX_LOCK_SECONDS = 60;

// Per client address: looser (an office behind one NAT shares it), counted the same way; the
// count starts again after ADDRESS_QUIET_MINUTES without an attempt.
export const ADDRESS_FREE_ATTEMPTS = 20;
export const ADDRESS_QUIET_MINUTES = 15;

export function lockSecondsAfter(failedLogins: number, freeAttempts = FREE_ATTEMPTS): number {
  if (failedLogins < freeAttempts) return 0;
  return Math.min(2 ** (failedLogins - freeAttempts), MAX_LOCK_SECONDS);
}

export function secondsUntilUnlocked(lockedUntil: Date | null, now: Date): number {
  if (!lockedUntil) return 0;
  return Math.max(0, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
}
