// Vitest's order on a fresh clone (no timing cache) is by file size, so a long file could start
// last and run alone at the end. The files CI's log shows longest start first, longest first.
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONGEST = [
  "test/demo/try-it.test.ts",
  "test/deploy/csv-export-memory.test.ts",
  "test/failover/failover.integration.test.ts",
  "test/scale/page-plans.integration.test.ts",
  "test/pooler/replicas.pooled.test.ts",
  "test/operations/readiness/truthful-verdict.integration.test.ts",
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST.indexOf(relative(file.project.config.root, file.moduleId));
      return index === -1 ? LONGEST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
