// Nothing in the project reaches Next's private code or state (docs/decisions/0024): the lint rule
// in eslint.config.mjs must catch every way a file can name it, in every folder and module kind.
// `npm run lint` applies it to the files; this checks the rule itself, with the project's config.
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const eslint = new ESLint({ cwd: root });

const FORBIDDEN: Record<string, string> = {
  import: 'import { NodeNextRequest } from "next/dist/server/base-http/node";',
  "export … from": 'export { setRequestMeta } from "next/dist/server/request-meta";',
  require: 'const meta = require("next/dist/server/request-meta");',
  "dynamic import()": 'const meta = await import("next/dist/server/request-meta");',
  "require.resolve": 'const bin = require.resolve("next/dist/bin/next");',
  "createRequire(…)(…)": 'const utils = createRequire(import.meta.url)("next/dist/server/lib/server-ipc/utils");',
  "a path in a template": "const file = `${dir}/node_modules/next/dist/server/next-server.js`;",
  "a private environment variable": 'process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = "{}";',
  "a private environment variable by string": 'const config = process.env["__NEXT_PRIVATE_STANDALONE_CONFIG"];',
  "a private global": "globalThis.__NEXT_DATA__ = {};",
};
const ALLOWED = [
  'import next from "next";',
  'import { NextResponse } from "next/server";',
  'const pkg = createRequire(import.meta.url).resolve("next/package.json");',
  'const name = "next-dist-build";',
];
const RULES = new Set(["no-restricted-imports", "no-restricted-syntax"]);
const FOLDERS = [
  "server",
  "scripts",
  "bench",
  "test",
  "e2e",
  "faults",
  "tooling",
  "simulator",
  "lib",
  "http",
  "app",
  ".",
];

async function reportedLines(filePath: string, lines: string[]): Promise<Set<number>> {
  const [result] = await eslint.lintText(lines.join("\n"), { filePath: path.join(root, filePath) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return new Set(result!.messages.filter((m) => RULES.has(m.ruleId ?? "")).map((m) => m.line));
}

describe("no file reaches Next's internals", () => {
  for (const folder of FOLDERS) {
    for (const extension of ["ts", "mjs"]) {
      const file = path.join(folder, `probe.${extension}`);
      it(`the lint rule catches each form in ${file}`, async () => {
        const forms = Object.keys(FORBIDDEN);
        const reported = await reportedLines(file, Object.values(FORBIDDEN));
        expect(forms.filter((_, index) => !reported.has(index + 1))).toEqual([]);
      });
    }
  }

  it("and lets Next's documented entry points through", async () => {
    expect([...(await reportedLines("server/probe.ts", ALLOWED))]).toEqual([]);
  });
});
