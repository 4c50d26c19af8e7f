// Under `npm run dev` next dev starts before the database is ready: the app's queries wait for the
// launcher's ready file (lib/core/db/dev-ready-gate.ts), on the real client of lib/core/db/client.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/core/config/env";
import { disconnectDb, prisma } from "@/lib/core/db/client";

let readyFile = "";

beforeEach(() => {
  readyFile = path.join(mkdtempSync(path.join(tmpdir(), "keyhook-dev-ready-")), "ready");
});

afterEach(async () => {
  delete process.env.KEYHOOK_DEV_READY_FILE;
  resetEnvForTests();
  await disconnectDb();
  rmSync(path.dirname(readyFile), { recursive: true, force: true });
});

describe("the dev ready gate", () => {
  it("holds a query until the ready file exists, then runs it", async () => {
    process.env.KEYHOOK_DEV_READY_FILE = readyFile;
    resetEnvForTests();
    await disconnectDb(); // the next query makes a client that reads the setting

    let answered = false;
    const gated = prisma.$queryRaw<{ one: number }[]>`SELECT 1 AS one`.then((rows) => {
      answered = true;
      return rows;
    });
    // The database answers a connection of its own meanwhile: the gate, not PostgreSQL, holds it.
    for (let round = 0; round < 5; round++) {
      const direct = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await direct.connect();
      await direct.query("SELECT 1");
      await direct.end();
    }
    expect(answered).toBe(false);

    writeFileSync(readyFile, "");
    await expect(gated).resolves.toEqual([{ one: 1 }]);
  });

  it("lets a query through at once when the file is there", async () => {
    writeFileSync(readyFile, "");
    process.env.KEYHOOK_DEV_READY_FILE = readyFile;
    resetEnvForTests();
    await disconnectDb();
    await expect(prisma.$queryRaw`SELECT 1 AS one`).resolves.toEqual([{ one: 1 }]);
  });
});
