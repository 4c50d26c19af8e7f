// The names drift alerts and their outbox rows go by, shared by the check and the resolve action.
export const driftSubject = (tenantId: string, keyId: string) => `drift/${tenantId}/${keyId}`;

/** One provider revoke per alert occurrence: a re-opened alert may send a new one. */
export const driftRevokeIdempotencyKey = (alertId: bigint | string, count: number) =>
  `drift-revoke:${alertId}:${count}`;
