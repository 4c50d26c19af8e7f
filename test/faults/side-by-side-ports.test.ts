// CI runs the quick fault-injection, failover and restore runs side by side (.ci/run): with their
// default settings, no two may listen on one port or write into one folder, or one run's server
// would answer another's requests and each would fail for the other's reasons.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readFailoverRunOptions } from "@/faults/failover-options";
import { readFaultRunOptions } from "@/faults/options";
import { readRestoreRunOptions } from "@/faults/restore-options";

const root = path.resolve(import.meta.dirname, "../..");

type Claim = { run: string; ports: number[]; dataDir: string };

function claims(): Claim[] {
  const faults = readFaultRunOptions(["--quick"], {});
  const failover = readFailoverRunOptions(["--quick"], {});
  const restore = readRestoreRunOptions(["--quick"], {});
  // The Patroni cluster's ports (test/support/patroni-cluster.ts): etcd, its peer, two HAProxy
  // fronts, then per node its PostgreSQL, its REST API and its replication proxy.
  const base = failover.basePort;
  const nodes = Array.from({ length: failover.nodes }, (_, i) => [base + 10 + i, base + 20 + i, base + 30 + i]);
  return [
    {
      run: "test:faults",
      ports: [faults.appPort, faults.simPort, faults.proxyPort, faults.pgPort],
      dataDir: faults.dataDir,
    },
    {
      run: "test:failover",
      ports: [failover.appPort, failover.simPort, base, base + 1, base + 2, base + 3, ...nodes.flat()],
      dataDir: failover.dataDir,
    },
    { run: "test:restore", ports: [restore.appPort, restore.simPort, restore.pgPort], dataDir: restore.dataDir },
  ];
}

/** "port N: run A and run B" for every port or folder two runs share. */
export function clashes(runs: Claim[]): string[] {
  const owners = new Map<string, string[]>();
  for (const { run, ports, dataDir } of runs) {
    for (const key of [
      ...new Set(ports.map((port) => `port ${port}`)),
      `folder ${path.normalize(dataDir).replace(/\/+$/, "")}`,
    ])
      owners.set(key, [...(owners.get(key) ?? []), run]);
  }
  return [...owners].filter(([, runs]) => runs.length > 1).map(([key, runs]) => `${key}: ${runs.join(" and ")}`);
}

describe("the quick runs CI starts side by side", () => {
  it("are the three this test checks", () => {
    const ci = readFileSync(path.join(root, ".ci/run"), "utf8");
    const line = ci.split("\n").find((l) => l.includes('"npm run test:faults -- --quick"'));
    expect(line).toBe(
      '  "npm run test:faults -- --quick" "npm run test:failover -- --quick" "npm run test:restore -- --quick"',
    );
  });

  it("listen on ports and write into folders of their own", () => {
    expect(clashes(claims())).toEqual([]);
  });

  it("the check sees a clash", () => {
    expect(
      clashes([
        { run: "a", ports: [1, 2], dataDir: ".data/a" },
        { run: "b", ports: [2, 3], dataDir: ".data/a/" },
      ]),
    ).toEqual(["port 2: a and b", "folder .data/a: a and b"]);
  });
});
