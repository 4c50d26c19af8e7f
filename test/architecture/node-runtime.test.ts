// One Node release for production: .node-version names it, the Dockerfile's NODE_VERSION builds
// and runs on it, and CI runs the standalone artifact on it (tooling/ci/node-runtime.sh). A bump
// in one place and not the other would ship a runtime nobody tested.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_OPTIONS } from "../../scripts/server-node-options";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the production Node release", () => {
  const pinned = read(".node-version").trim();

  it("is a full Node 24+ LTS version", () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    // Even majors are the LTS lines; 20 is past its end of life (2026-04-30).
    const major = Number(pinned.split(".")[0]);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
  });

  it("is the one the Dockerfile builds and runs on", () => {
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(new RegExp(`^ARG NODE_VERSION=${pinned.replaceAll(".", "\\.")}$`, "m"));
    const stages = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(stages.length).toBeGreaterThan(0);
    for (const image of stages) expect(image).toBe("node:${NODE_VERSION}-bookworm-slim");
  });

  it("runs the server with the V8 sizing npm start gives it", () => {
    expect(read("Dockerfile")).toMatch(new RegExp(`^ENV NODE_OPTIONS=${SERVER_NODE_OPTIONS}$`, "m"));
  });

  it("is the one CI runs the artifact on", () => {
    expect(read(".ci/run")).toContain("tooling/ci/node-runtime.sh");
  });
});
