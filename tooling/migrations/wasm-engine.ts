import "server-only";
// Migrations without the native Prisma schema engine (which the CLI downloads, and we are
// offline): the same engine compiled to WebAssembly, driven through adapter-pg. It writes the
// standard `_prisma_migrations` table, so `prisma migrate deploy` and this code agree.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { bindMigrationAwareSqlAdapterFactory, type ErrorRegistry } from "@prisma/driver-adapter-utils";
import type { DiffTarget, SchemaEngine } from "@prisma/schema-engine-wasm";
import { createMigrationAdapterFactory, type MigrationAdapterFactory } from "./pg-adapter";
import { DEFAULT_MIGRATIONS_DIR, readMigrationsList } from "./migrations-dir";
import { migrationUrl } from "../../lib/core/config/database-urls";
import { installJobQueue } from "./job-queue";
import { withMigrationLock } from "./migration-lock";
import { assertDatabaseUrls } from "./pooler-probe";

export { migrationStatus } from "../../lib/operations/health/migration-status";

const SCHEMA_PATH = "prisma/schema.prisma";
const noFilters = { externalTables: [], externalEnums: [] };

export type EngineLog = (message: string) => void;

/**
 * Applies the migrations not yet in `_prisma_migrations`, in name order, each as one script.
 * Always on a direct connection (`directDatabaseUrl` when given, else `databaseUrl`); either URL
 * reaching a pooler it was not declared as is refused first (pooler-probe.ts). Safe with several replicas booting at once: they queue on our
 * migration lock (migration-lock.ts: interruptible by `signal`, bounded by `lockTimeoutMs`), and
 * the engine takes its own pg_advisory_lock(72707369) inside it, as Prisma's CLI does.
 * A failed migration is recorded as failed and blocks later runs, exactly like Prisma's CLI.
 * Then the job queue's schema is installed or upgraded (job-queue.ts), under the same lock.
 * Returns the names applied now (empty when up to date).
 */
export async function applyMigrations(options: {
  databaseUrl: string;
  /** PostgreSQL itself when `databaseUrl` goes through a pooler (DIRECT_DATABASE_URL). */
  directDatabaseUrl?: string;
  migrationsDir?: string;
  log?: EngineLog;
  /** Waiting for another replica's migrations longer than this fails the start. Default 5 min. */
  lockTimeoutMs?: number;
  /** Aborting it (SIGTERM) ends the wait for the lock at once. */
  signal?: AbortSignal;
  /** Progress for a human (who holds the lock we wait for). */
  notice?: (message: string) => void;
}): Promise<string[]> {
  await assertDatabaseUrls(options);
  const url = migrationUrl(options);
  const migrationsList = await readMigrationsList(options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const lock = { url, timeoutMs: options.lockTimeoutMs ?? 300_000, signal: options.signal, log: options.notice };
  const output = await withMigrationLock(lock, async () => {
    const applied = await withEngine({ url }, options.log, (engine) =>
      engine.applyMigrations({ migrationsList, filters: noFilters }),
    );
    // The job queue's schema (graphile_worker) is part of every migration step, not installed lazily.
    await installJobQueue({ url });
    return applied;
  });
  return output.appliedMigrationNames;
}

/**
 * The SQL that takes a database from `from` to prisma/schema.prisma: from nothing, or from
 * the state the migrations directory produces (replayed on `shadowDatabaseUrl`, an empty
 * scratch database this call may fill). Empty string when there is nothing to do.
 */
export async function diffSchemaToSql(options: {
  from: "empty" | "migrations";
  shadowDatabaseUrl?: string;
  migrationsDir?: string;
  schemaPath?: string;
  log?: EngineLog;
}): Promise<string> {
  const schemaPath = path.resolve(options.schemaPath ?? SCHEMA_PATH);
  const to: DiffTarget = {
    tag: "schemaDatamodel",
    files: [{ path: schemaPath, content: await readFile(schemaPath, "utf8") }],
  };
  let from: DiffTarget = { tag: "empty" };
  if (options.from === "migrations") {
    if (!options.shadowDatabaseUrl) throw new Error("a diff from the migrations needs shadowDatabaseUrl");
    from = { tag: "migrations", ...(await readMigrationsList(options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR)) };
  }
  const result = await withEngine({ shadowUrl: options.shadowDatabaseUrl }, options.log, (engine) =>
    engine.diff({ from, to, script: true, exitCode: null, filters: noFilters }),
  );
  const sql = result.stdout ?? "";
  // The engine answers a comment when there is nothing to change.
  return /^\s*(--[^\n]*\s*)*$/.test(sql) ? "" : sql;
}

/** Runs `work` on a fresh engine, then frees it and ends every connection it opened. */
async function withEngine<T>(
  connection: { url?: string; shadowUrl?: string },
  log: EngineLog | undefined,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadWasm();
  const factory: MigrationAdapterFactory = createMigrationAdapterFactory(connection);
  const schemaPath = path.resolve(SCHEMA_PATH);
  const datamodel = await readFile(schemaPath, "utf8");
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  let engine: SchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new(
      { datamodels: [[schemaPath, datamodel]] },
      (message: string) => log?.(message),
      bound,
    );
    return await work(engine);
  } catch (error) {
    throw engineError(error, bound.errorRegistry);
  } finally {
    engine?.free();
    await factory.disposeAll();
  }
}

type WasmModule = { SchemaEngine: typeof SchemaEngine };
let wasmModule: Promise<WasmModule> | undefined;
let lastPanic: string | undefined;

/**
 * Node 20 cannot import a .wasm file as an ES module, so we instantiate it ourselves with the
 * package's JS glue. The .wasm is the one the `prisma` CLI package ships (its own engine build,
 * same imports as this glue); loaded once per process, lazily, so importing this file is cheap.
 */
function loadWasm(): Promise<WasmModule> {
  wasmModule ??= (async () => {
    // The engine reports a Rust panic here; without it a panic shows as an unrelated TypeError.
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message: string) => {
        lastPanic = message;
        // A panic inside an engine callback can crash the process before any promise rejects.
        console.error(`prisma schema engine panic: ${message}`);
      },
    };
    const glue = await import("@prisma/schema-engine-wasm/schema_engine_bg");
    const require = createRequire(import.meta.url);
    const wasmPath = path.join(path.dirname(require.resolve("prisma/package.json")), "build", "schema_engine_bg.wasm");
    const imports: WebAssembly.ModuleImports = { ...glue };
    // The engine arms 10 s timers (connection idle timeouts) that would keep every migrate or
    // diff process alive for 10 s after its work is done: unref them.
    for (const name of Object.keys(glue).filter((key) => key.startsWith("__wbg_setTimeout_"))) {
      imports[name] = (callback: () => void, ms: number) => setTimeout(callback, ms >>> 0).unref();
    }
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), { "./schema_engine_bg.js": imports });
    const exports = instance.exports as WebAssembly.Exports & { __wbindgen_start?: () => void };
    glue.__wbg_set_wasm(exports);
    exports.__wbindgen_start?.();
    return { SchemaEngine: glue.SchemaEngine };
  })();
  return wasmModule;
}

/** The engine rejects with plain objects or strings; give callers an Error with its message. */
function engineError(error: unknown, registry: ErrorRegistry): Error {
  const panic = lastPanic;
  lastPanic = undefined;
  // A database error reaches us as "External error id#N": the driver's own error waits in the
  // registry under N (its PostgreSQL code and message are what an operator and a retry need).
  const external = /External error id#(\d+)/.exec(error instanceof Error ? error.message : String(error));
  const original = external ? registry.consumeError(Number(external[1]))?.error : undefined;
  if (original !== undefined) return driverError(original);
  if (error instanceof Error) {
    if (panic) error.message = `${error.message} (schema engine panic: ${panic})`;
    return error;
  }
  const message =
    typeof error === "string" ? error : ((error as { message?: string })?.message ?? JSON.stringify(error));
  return new Error(panic ? `${message} (schema engine panic: ${panic})` : message, { cause: error });
}

/** The driver's error, with PostgreSQL's code (or adapter-pg's kind: ConnectionClosed …) as `code`. */
function driverError(original: unknown): Error {
  if (!(original instanceof Error)) return new Error(String(original), { cause: original });
  const cause = (original as { cause?: { originalCode?: string; originalMessage?: string; kind?: string } }).cause;
  if (!cause?.kind) return original;
  return Object.assign(new Error(cause.originalMessage ?? original.message, { cause: original }), {
    code: cause.originalCode ?? cause.kind,
  });
}
