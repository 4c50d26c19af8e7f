import "server-only";
// The one Prisma client of the process. Every service takes `db: DbOrTx = prisma` so a caller can
// pass a transaction handle instead. A service that needs a transaction of its own still calls
// db.$transaction: on a transaction handle Prisma opens a savepoint inside the caller's
// transaction, so services compose (the caller's commit or rollback decides for both).
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../../generated/prisma/client";
import { env } from "../config/env";
import { AppError } from "../errors";
import { driverUrl, isPooledUrl } from "../config/database-urls";
import { preparedStatementNames } from "./prepared-statement-names";
import { devReadyGatedClient, isDevReady } from "./dev-ready-gate";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
export type DbOrTx = PrismaClient | Tx;

function createClient(): PrismaClient {
  const { DATABASE_URL, DATABASE_POOL_SIZE, KEYHOOK_DEV_READY_FILE } = env();
  if (!DATABASE_URL) {
    throw new AppError(
      "invalid_setting",
      "invalid setting DATABASE_URL: is not set (start the app with `npm run dev` or `npm start`, which provide one)",
    );
  }
  const pooled = isPooledUrl(DATABASE_URL);
  // `npm run dev`: connections wait for the launcher's database (dev-ready-gate.ts), without the
  // usual bound while it is still starting.
  const readyFile = KEYHOOK_DEV_READY_FILE;
  const adapter = new PrismaPg(
    {
      connectionString: driverUrl(DATABASE_URL),
      max: DATABASE_POOL_SIZE,
      connectionTimeoutMillis: readyFile && !isDevReady(readyFile) ? 0 : 3_000,
      ...(readyFile ? { Client: devReadyGatedClient(readyFile) } : {}),
      // No startup `options` and no session SET: a transaction-mode pooler refuses the one and
      // loses the other. What the ingest transaction needs (READ COMMITTED, lock_timeout,
      // idle_in_transaction_session_timeout) it sets itself, transaction-locally, inside the one
      // statement it runs (keyhook_ingest, prisma/sql/keyhook_ingest.sql).
    },
    {
      // Named (prepared) statements: PostgreSQL parses and plans each distinct statement once per
      // connection instead of on every execution, which the ingest path measurably gains from
      // (bench:ingest, named against unnamed). Only on a direct connection: through a
      // transaction-mode pooler a name prepared on one server connection is missing on the next
      // (26000) or already taken there by another client (42P05), so pooled statements stay
      // unnamed (bench/pooler.ts measures the difference).
      statementNameGenerator: pooled ? undefined : preparedStatementNames(),
    },
  );
  // "minimal": no call-site capture (a `new Error()` per query, for a code frame in the message)
  // on every call; our logs keep only an error's last line anyway (lib/core/log.ts, describeError).
  return new PrismaClient({ adapter, errorFormat: "minimal" });
}

const globalForPrisma = globalThis as unknown as { keyhookPrisma?: PrismaClient };

// Methods of the current client, bound once: the client is itself a proxy (its model and
// extension layers), so a lookup and a fresh bound function on every call (`prisma.$transaction`
// per delivery) cost more than the map. Kept for one client: emptied when it is replaced (after
// disconnectDb, by this module instance or another route bundle's).
const boundMethods = new Map<string | symbol, unknown>();
let boundTo: PrismaClient | undefined;

/** Lazily created so that importing a module never needs a database (next build, unit tests). */
export const prisma: PrismaClient = new Proxy({} as PrismaClient, {
  get(_target, property) {
    const client = globalForPrisma.keyhookPrisma;
    if (client !== undefined && client === boundTo) {
      const known = boundMethods.get(property);
      if (known !== undefined) return known;
    }
    globalForPrisma.keyhookPrisma ??= createClient();
    if (boundTo !== globalForPrisma.keyhookPrisma) {
      boundMethods.clear();
      boundTo = globalForPrisma.keyhookPrisma;
    }
    const value = Reflect.get(globalForPrisma.keyhookPrisma, property);
    if (typeof value !== "function") return value;
    const bound = value.bind(globalForPrisma.keyhookPrisma);
    boundMethods.set(property, bound);
    return bound;
  },
});

export async function disconnectDb(): Promise<void> {
  const client = globalForPrisma.keyhookPrisma;
  globalForPrisma.keyhookPrisma = undefined;
  await client?.$disconnect();
}
