// Per-account login throttling with exponential backoff.
// Why it cannot be turned into a denial of service: the account is never locked for good. After
// FREE_ATTEMPTS consecutive failures each further failure closes the door for 1, 2, 4 … seconds,
// capped at MAX_LOCK_SECONDS, and attempts made while the door is closed are refused without
// counting, so an attacker hammering an address cannot push the wait beyond the cap. The real
// owner waits at most MAX_LOCK_SECONDS after the attacker's last try; a success resets the count.
export const FREE_ATTEMPTS = 5;
export const MAX_LOCK_SECONDS = 60;

export function lockSecondsAfter(failedLogins: number): number {
  if (failedLogins < FREE_ATTEMPTS) return 0;
  return Math.min(2 ** (failedLogins - FREE_ATTEMPTS), MAX_LOCK_SECONDS);
}

export function secondsUntilUnlocked(lockedUntil: Date | null, now: Date): number {
  if (!lockedUntil) return 0;
  return Math.max(0, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
}
