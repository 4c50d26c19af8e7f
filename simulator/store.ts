// The simulator's durable state: everything lives in memory and every change is appended to an
// ndjson journal BEFORE the API answers (or the next delivery step runs), so the provider's keys,
// sequences, idempotency answers and delivery history survive its own restart, even a SIGKILL.
//
// Why a journal file and not a PostgreSQL database: the simulator stands in for a remote party and
// must stay independent of the app's database — its truth is the oracle the end-to-end test
// compares the app against — and one single-threaded writer needs no server: each record is a full
// "put" of one entity, replayed last-write-wins. On start the journal is compacted (written to a
// temporary file, fsynced, renamed over the old one). Writes are not fsynced one by one: a process
// crash loses nothing (the kernel has the bytes), a power cut may lose the last records — fine for
// a development stand-in. A torn last line (crash mid-write) is skipped on load.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import type {
  JournalRecord,
  SimAttempt,
  SimEvent,
  SimHook,
  SimIdempotentAnswer,
  SimKey,
  SimMessage,
  SimTenant,
} from "./model";

export class SimStore {
  readonly hooks = new Map<string, SimHook>();
  readonly tenants = new Map<string, SimTenant>();
  readonly keys = new Map<string, SimKey>();
  readonly events = new Map<string, SimEvent>();
  readonly messages = new Map<string, SimMessage>();
  readonly attempts: SimAttempt[] = [];
  /** Attempts by id: a redelivery names one, and a long history is not scanned for it. */
  readonly attemptsById = new Map<string, SimAttempt>();
  readonly idempotency = new Map<string, SimIdempotentAnswer>();
  private fd: number | null = null;
  // Each tenant's key ids, sorted on demand for list-keys paging (a key never changes tenant and
  // is never deleted, so only a new key makes the order stale).
  private readonly keyIdsOfTenant = new Map<string, { ids: string[]; sorted: boolean }>();

  private constructor(private readonly file: string | null) {}

  /** `dataDir: null` keeps everything in memory (unit tests). */
  static open(dataDir: string | null): SimStore {
    if (dataDir === null) return new SimStore(null);
    mkdirSync(dataDir, { recursive: true });
    const store = new SimStore(path.join(dataDir, "journal.ndjson"));
    store.load();
    store.compact();
    return store;
  }

  put(record: JournalRecord): void {
    this.apply(record);
    if (this.fd !== null) writeSync(this.fd, JSON.stringify(record) + "\n");
  }

  /** The tenant's key ids in code-unit order (the list-keys order). */
  tenantKeyIds(tenantId: string): readonly string[] {
    const index = this.keyIdsOfTenant.get(tenantId);
    if (!index) return [];
    if (!index.sorted) {
      index.ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      index.sorted = true;
    }
    return index.ids;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private apply(record: JournalRecord): void {
    switch (record.t) {
      case "hook":
        this.hooks.set(record.v.id, record.v);
        break;
      case "tenant":
        this.tenants.set(record.v.id, record.v);
        break;
      case "key":
        if (!this.keys.has(record.v.id)) {
          const index = this.keyIdsOfTenant.get(record.v.tenantId) ?? { ids: [], sorted: true };
          index.ids.push(record.v.id);
          index.sorted = false;
          this.keyIdsOfTenant.set(record.v.tenantId, index);
        }
        this.keys.set(record.v.id, record.v);
        break;
      case "event":
        this.events.set(record.v.id, record.v);
        break;
      case "message":
        this.messages.set(record.v.id, record.v);
        break;
      case "attempt":
        // Attempts are immutable and numbered in order; a replayed journal never repeats one.
        if (record.v.seq === this.attempts.length + 1) {
          this.attempts.push(record.v);
          this.attemptsById.set(record.v.id, record.v);
        }
        break;
      case "idempotency":
        this.idempotency.set(record.v.scope, record.v);
        break;
    }
  }

  private load(): void {
    if (!this.file || !existsSync(this.file)) return;
    for (const line of readFileSync(this.file, "utf8").split("\n")) {
      if (!line) continue;
      try {
        this.apply(JSON.parse(line) as JournalRecord);
      } catch {
        // A torn last line from a crash mid-write: everything before it is intact.
      }
    }
  }

  private compact(): void {
    const file = this.file!;
    const temporary = `${file}.tmp`;
    const fd = openSync(temporary, "w");
    const write = (record: JournalRecord) => writeSync(fd, JSON.stringify(record) + "\n");
    for (const v of this.hooks.values()) write({ t: "hook", v });
    for (const v of this.tenants.values()) write({ t: "tenant", v });
    for (const v of this.keys.values()) write({ t: "key", v });
    for (const v of this.events.values()) write({ t: "event", v });
    for (const v of this.messages.values()) write({ t: "message", v });
    for (const v of this.attempts) write({ t: "attempt", v });
    for (const v of this.idempotency.values()) write({ t: "idempotency", v });
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, file);
    this.fd = openSync(file, "a");
  }
}
