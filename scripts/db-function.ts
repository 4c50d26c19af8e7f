// `npm run db:function -- <name> [migration_name] [--drop "arg types"]`: writes
// prisma/migrations/<timestamp>_<migration_name>/migration.sql (default migration_name: <name>)
// deploying prisma/sql/<name>.sql with CREATE OR REPLACE. Nothing to write when the last
// migration that defines the function already holds the source's text. `--drop` first drops the
// old signature, for the changes CREATE OR REPLACE refuses (result columns, argument names).
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_MIGRATIONS_DIR } from "../tooling/migrations/migrations-dir";
import { nextMigrationTimestamp } from "../tooling/migrations/next-migration-timestamp";
import {
  definitionIn,
  functionMigrationSql,
  latestMigratedDefinition,
  readFunctionSource,
} from "../tooling/migrations/sql-functions";

const { positionals, values } = parseArgs({ allowPositionals: true, options: { drop: { type: "string" } } });
const [name = "", migrationName = name] = positionals;
if (!/^[a-z0-9_]+$/.test(name) || !/^[a-z0-9_]+$/.test(migrationName)) {
  console.error('usage: npm run db:function -- <function_name> [migration_name] [--drop "arg types"]');
  process.exit(2);
}

try {
  const source = await readFunctionSource(name);
  if ((await latestMigratedDefinition(name)) === definitionIn(source, name)) {
    console.log(`no changes: the migrations already deploy prisma/sql/${name}.sql`);
  } else {
    const dir = path.join(DEFAULT_MIGRATIONS_DIR, `${await nextMigrationTimestamp()}_${migrationName}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "migration.sql"),
      functionMigrationSql(name, source, { dropSignature: values.drop }),
    );
    console.log(`created ${dir}/migration.sql — review it, then npm run db:migrate`);
  }
} catch (error) {
  console.error(`keyhook: db:function failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
