import "server-only";
// The driver adapter the WebAssembly schema engine migrates through: @prisma/adapter-pg with
// two fixes the engine needs, and every adapter it opens tracked so we can dispose of them.
import { PrismaPg } from "@prisma/adapter-pg";
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import pg from "pg";

export type MigrationAdapterFactory = SqlMigrationAwareDriverAdapterFactory & {
  /** Ends every pool the engine opened: an open pool keeps its connection and the advisory lock. */
  disposeAll(): Promise<void>;
};

const CHAR_OID = 18; // PostgreSQL's internal one-byte "char" (pg_class.relkind, pg_constraint.contype, …)
const TEXT_OID = 25;

/**
 * `url`: the database to migrate (omit it for a diff that needs no database: the engine then
 * gets an adapter that answers only its startup probe). `shadowUrl`: an empty scratch database
 * the engine may fill and reset, for a diff from the migrations directory.
 */
export function createMigrationAdapterFactory(options: { url?: string; shadowUrl?: string }): MigrationAdapterFactory {
  const open = new Set<SqlDriverAdapter>();
  const track = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    const dispose = adapter.dispose.bind(adapter);
    let disposed: Promise<void> | undefined;
    // Idempotent: the engine may dispose an adapter itself, and we dispose all at the end.
    adapter.dispose = () => {
      open.delete(adapter);
      disposed ??= dispose();
      return disposed;
    };
    open.add(adapter);
    return adapter;
  };
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: async () => track(options.url ? await openAdapter(options.url) : probeOnlyAdapter()),
    connectToShadowDb: async () => {
      if (!options.shadowUrl) throw new Error("this operation needs a shadow database (shadowDatabaseUrl)");
      return track(await openAdapter(options.shadowUrl));
    },
    disposeAll: async () => {
      await Promise.allSettled([...open].map((adapter) => adapter.dispose()));
    },
  };
}

async function openAdapter(url: string): Promise<SqlDriverAdapter> {
  // One connection: the engine takes the session-level pg_advisory_lock(72707369) and never
  // unlocks it; the lock lasts until this pool ends (disposeAll), and the whole run shares it.
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const schema = new URL(url).searchParams.get("schema") ?? "public";
  const adapter = await new PrismaPg(pool, { schema, disposeExternalPool: true }).connect();
  understandCharType(adapter, pool);
  adapter.executeScript = (script) => executeScript(pool, script);
  return adapter;
}

/**
 * adapter-pg 7.10's executeScript splits the script on ";" and runs the pieces one by one: a
 * plpgsql `$$` body breaks, and a failure leaves the statements before it applied. Sent whole as
 * ONE simple-protocol query, PostgreSQL parses it itself and runs it as one implicit transaction:
 * a migration applies completely or not at all (as with Prisma's native engine).
 */
async function executeScript(pool: pg.Pool, script: string): Promise<void> {
  const client = await pool.connect().catch((error: unknown) => {
    throw toAdapterError(error);
  });
  let broken: Error | undefined;
  try {
    await client.query(script); // no parameters: pg uses the simple query protocol
  } catch (error) {
    // A statement error leaves the session usable; anything else (socket) discards it.
    if (!(error instanceof pg.DatabaseError)) broken = error as Error;
    throw toAdapterError(error);
  } finally {
    client.release(broken);
  }
}

/**
 * adapter-pg refuses columns of PostgreSQL's internal type "char" — "Column type 'char' could
 * not be deserialized" when the engine introspects a shadow database (pg_constraint.contype,
 * …) — and the engine expects such a column typed as Character. pg already returns the value
 * as a one-character string: we report the column to adapter-pg as text, then retype it.
 * Keyed by SQL text: the same query always yields the same column types.
 */
function understandCharType(adapter: SqlDriverAdapter, pool: pg.Pool): void {
  const charColumnsBySql = new Map<string, number[]>();
  const query = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
  pool.query = (async (config: pg.QueryConfig) => {
    const result = await query(config);
    const charColumns: number[] = [];
    result.fields?.forEach((field, index) => {
      if (field.dataTypeID !== CHAR_OID) return;
      field.dataTypeID = TEXT_OID;
      charColumns.push(index);
    });
    if (charColumns.length > 0) charColumnsBySql.set(config.text, charColumns);
    return result;
  }) as typeof pool.query;
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = async (sqlQuery) => {
    const result = await queryRaw(sqlQuery);
    for (const index of charColumnsBySql.get(sqlQuery.sql) ?? []) result.columnTypes[index] = ColumnTypeEnum.Character;
    return result;
  };
}

function toAdapterError(error: unknown): unknown {
  if (error instanceof pg.DatabaseError) {
    return new DriverAdapterError({
      kind: "postgres",
      code: error.code ?? "N/A",
      severity: error.severity ?? "N/A",
      message: error.message,
      detail: error.detail,
      column: error.column,
      hint: error.hint,
      originalCode: error.code,
      originalMessage: error.message,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ECONNREFUSED" || code === "ENOTFOUND") {
    const { address, port } = error as { address?: string; port?: number };
    return new DriverAdapterError({ kind: "DatabaseNotReachable", host: address, port });
  }
  if (code === "ECONNRESET") return new DriverAdapterError({ kind: "ConnectionClosed" });
  return error; // reported by the engine as a JS error with its message
}

/**
 * Stands in for a database where the engine needs none (diff from empty or from the schema):
 * it only answers the probe the engine sends when it starts, as PostgreSQL 18 would.
 */
function probeOnlyAdapter(): SqlDriverAdapter {
  const fail = async (): Promise<never> => {
    throw new Error("no database: this adapter only answers the schema engine's startup probe");
  };
  return {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    queryRaw: async (query) => {
      if (!query.sql.startsWith("SELECT EXISTS(SELECT 1 FROM pg_namespace")) return fail();
      return {
        columnNames: ["exists", "version", "numeric_version"],
        columnTypes: [ColumnTypeEnum.Boolean, ColumnTypeEnum.Text, ColumnTypeEnum.Int32],
        rows: [[true, "PostgreSQL 18.4", 180004]],
      };
    },
    executeRaw: fail,
    executeScript: fail,
    startTransaction: fail,
    getConnectionInfo: () => ({ schemaName: "public", supportsRelationJoins: true }),
    dispose: async () => {},
  };
}
