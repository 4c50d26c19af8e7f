// The provider's business rules: hooks, keys and the events their changes emit. Every change is
// journaled (store.put) before the caller answers. Rules the app relies on:
// - each tenant's events carry an increasing sequence;
// - a tenant has at most one active key: issuing while one is active is refused (409; rotate it);
// - rotate needs an active key; revoke works on an active or rotated key and is monotonic:
//   revoking a revoked key succeeds and changes nothing (no event).
import { randomBytes } from "node:crypto";
import { HOOK_NOT_FOUND, KEY_CALL_REFUSALS } from "../lib/operations/provider/api-schema";
import { buildKeyEvent } from "../lib/operations/provider/signed-delivery";
import type { SimEvent, SimHook, SimKey, SimMessage, SimTenant } from "./model";
import type { SimStore } from "./store";

export class SimApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type KeyChange = { key: SimKey; secret: string | null; previousKeyId: string | null; event: SimEvent | null };

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

export class SimProvider {
  constructor(
    private readonly store: SimStore,
    private readonly defaultSecret: string,
    /** Called for each new message so the dispatcher can schedule its first delivery. */
    private readonly onMessage: (message: SimMessage) => void,
    private readonly now: () => number = Date.now,
  ) {}

  registerHook(url: string): SimHook {
    const hook: SimHook = {
      id: `hook_${hex(8)}`,
      url,
      secret: this.defaultSecret,
      previousSecret: null,
      previousSecretValidUntil: null,
      createdAt: this.now(),
    };
    this.store.put({ t: "hook", v: hook });
    return hook;
  }

  rotateHookSecret(hookId: string, options: { secret?: string; overlapSeconds?: number }): SimHook {
    const hook = this.hook(hookId);
    const rotated: SimHook = {
      ...hook,
      secret: options.secret ?? `whsec_${randomBytes(24).toString("base64")}`,
      previousSecret: hook.secret,
      previousSecretValidUntil: this.now() + (options.overlapSeconds ?? 86_400) * 1000,
    };
    this.store.put({ t: "hook", v: rotated });
    return rotated;
  }

  hook(hookId: string): SimHook {
    const hook = this.store.hooks.get(hookId);
    if (!hook) throw new SimApiError(404, HOOK_NOT_FOUND, `no webhook ${hookId}`);
    return hook;
  }

  issueKey(tenantId: string, scopes: string[]): KeyChange {
    const active = this.activeKey(tenantId);
    if (active)
      throw new SimApiError(
        409,
        KEY_CALL_REFUSALS.activeKeyExists,
        `tenant ${tenantId} already has the active key ${active.id}; rotate it instead`,
      );
    const { key, secret } = this.newKey(tenantId, scopes);
    const event = this.emit({ type: "key.created", tenantId, key });
    return { key, secret, previousKeyId: null, event };
  }

  rotateKey(tenantId: string, keyId: string): KeyChange {
    const old = this.tenantKey(tenantId, keyId);
    if (old.status !== "active")
      throw new SimApiError(
        409,
        KEY_CALL_REFUSALS.keyNotActive,
        `key ${keyId} is ${old.status}; only an active key can be rotated`,
      );
    this.store.put({ t: "key", v: { ...old, status: "rotated", updatedAt: this.now() } });
    const { key, secret } = this.newKey(tenantId, old.scopes);
    const event = this.emit({ type: "key.rotated", tenantId, key, previousKeyId: old.id });
    return { key, secret, previousKeyId: old.id, event };
  }

  revokeKey(tenantId: string, keyId: string): KeyChange {
    const key = this.tenantKey(tenantId, keyId);
    if (key.status === "revoked") return { key, secret: null, previousKeyId: null, event: null };
    const revoked: SimKey = { ...key, status: "revoked", updatedAt: this.now() };
    this.store.put({ t: "key", v: revoked });
    const event = this.emit({ type: "key.revoked", tenantId, key: revoked });
    return { key: revoked, secret: null, previousKeyId: null, event };
  }

  /**
   * A test event (Svix's "send example"): a real, signed `key.revoked` of a key that never
   * existed, in the tenant's sequence, delivered to this hook only. The consumer records a
   * tombstone and nothing else; the readiness check uses it to see our side of a delivery.
   */
  testEvent(hookId: string, tenantId: string): SimEvent {
    this.hook(hookId);
    const key: SimKey = {
      id: `key_test_${hex(8)}`,
      tenantId,
      status: "revoked",
      prefix: "ik_test",
      scopes: [],
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    return this.emit({ type: "key.revoked", tenantId, key }, hookId);
  }

  activeKey(tenantId: string): SimKey | undefined {
    for (const key of this.store.keys.values()) if (key.tenantId === tenantId && key.status === "active") return key;
    return undefined;
  }

  /** Seeds a tenant's state without emitting anything (the demo districts start from the app's seed). */
  importTenant(tenant: SimTenant, keys: SimKey[]): void {
    this.store.put({ t: "tenant", v: tenant });
    for (const key of keys) this.store.put({ t: "key", v: key });
  }

  /** The provider's truth, for tests and demos: every tenant's sequence and keys. */
  truth(tenantId?: string) {
    const tenants = [...this.store.tenants.values()]
      .filter((t) => !tenantId || t.id === tenantId)
      .sort((a, b) => a.id.localeCompare(b.id));
    return tenants.map((tenant) => ({
      id: tenant.id,
      sequence: tenant.sequence,
      keys: [...this.store.keys.values()]
        .filter((k) => k.tenantId === tenant.id)
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((k) => ({ id: k.id, status: k.status, prefix: k.prefix, scopes: k.scopes })),
    }));
  }

  private tenantKey(tenantId: string, keyId: string): SimKey {
    const key = this.store.keys.get(keyId);
    // Another tenant's key is "not found" here: tenants never learn about each other's keys.
    if (!key || key.tenantId !== tenantId)
      throw new SimApiError(404, KEY_CALL_REFUSALS.keyNotFound, `tenant ${tenantId} has no key ${keyId}`);
    return key;
  }

  private newKey(tenantId: string, scopes: string[]): { key: SimKey; secret: string } {
    const prefix = `ik_live_${hex(2)}`;
    const key: SimKey = {
      id: `key_${hex(8)}`,
      tenantId,
      status: "active",
      prefix,
      scopes,
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.store.put({ t: "key", v: key });
    return { key, secret: `${prefix}_${hex(20)}` };
  }

  private emit(
    input: { type: SimEvent["type"]; tenantId: string; key: SimKey; previousKeyId?: string },
    onlyHookId?: string,
  ): SimEvent {
    const tenant = this.store.tenants.get(input.tenantId) ?? { id: input.tenantId, sequence: 0 };
    const next: SimTenant = { ...tenant, sequence: tenant.sequence + 1 };
    this.store.put({ t: "tenant", v: next });
    const createdAt = this.now();
    const body = buildKeyEvent({
      type: input.type,
      tenantId: input.tenantId,
      keyId: input.key.id,
      previousKeyId: input.previousKeyId,
      sequence: next.sequence,
      occurredAt: new Date(createdAt),
      prefix: input.key.prefix,
      scopes: input.key.scopes,
    });
    const event: SimEvent = {
      id: String(body.id),
      tenantId: input.tenantId,
      type: input.type,
      sequence: next.sequence,
      keyId: input.key.id,
      body: JSON.stringify(body),
      createdAt,
    };
    this.store.put({ t: "event", v: event });
    for (const hook of this.store.hooks.values()) {
      if (onlyHookId !== undefined && hook.id !== onlyHookId) continue;
      const message: SimMessage = {
        id: `msg_${hex(8)}`,
        hookId: hook.id,
        eventId: event.id,
        tenantId: event.tenantId,
        status: "pending",
        attempts: 0,
        scheduledAttempts: 0,
        nextAttemptAt: createdAt,
        manualQueued: 0,
        createdAt,
      };
      this.store.put({ t: "message", v: message });
      this.onMessage(message);
    }
    return event;
  }
}
