// .env.example documents every setting lib/core/config/env.ts reads, and nothing it does not.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "@/lib/core/config/env";

// Not for a person to set: NODE_ENV comes from `npm run dev` / `npm start`, and the launcher sets
// KEYHOOK_EXIT_WITH_PARENT for the processes it starts and KEYHOOK_DEV_READY_FILE for next dev.
const NOT_DOCUMENTED = new Set(["NODE_ENV", "KEYHOOK_EXIT_WITH_PARENT", "KEYHOOK_DEV_READY_FILE"]);

const example = readFileSync(path.resolve(import.meta.dirname, "../../../.env.example"), "utf8");
const documented = [...example.matchAll(/^# ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!);

describe(".env.example", () => {
  it("lists every setting once, and only settings lib/core/config/env.ts reads", () => {
    expect([...documented].sort()).toEqual(SETTING_NAMES.filter((name) => !NOT_DOCUMENTED.has(name)).sort());
  });
});
