// A fixed, public SECRETS_ENCRYPTION_KEYS for the processes tests and benchmarks start in
// production mode (which requires the setting). Test data only.
export const TEST_ENCRYPTION_KEYS = `test:${Buffer.alloc(32, "keyhook-test-encryption-key").toString("base64")}`;
/** A fixed, public AUDIT_SIGNING_KEY for the same processes (production requires it too). Test data only. */
export const TEST_AUDIT_SIGNING_KEY = `test:${Buffer.alloc(32, "keyhook-test-audit-signing-key").toString("base64")}`;
