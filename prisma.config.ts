import { defineConfig } from "prisma/config";

// The Prisma 7 CLI tries to download a native schema engine before every command and fails
// offline. generate / validate / format never run it: they only need the variable to name an
// existing file. migrate keeps the real download path (for machines with internet); offline we
// migrate through the WebAssembly engine instead (`npm run db:migrate`, tooling/migrations).
const offlineSafeCommands = new Set(["generate", "validate", "format", "version", "--version", "-v"]);
if (offlineSafeCommands.has(process.argv[2] ?? "") && !process.env.PRISMA_SCHEMA_ENGINE_BINARY) {
  process.env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/keyhook" },
});
