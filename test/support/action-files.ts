// The server-action modules of the app: every app/**/actions.ts (absolute paths), for the tests
// of the action wrapper (test/app/actions.integration.test.ts) and of the build's own list
// of actions (test/deploy/server-actions.test.ts).
import { readdirSync } from "node:fs";
import path from "node:path";

export const repositoryRoot = path.resolve(import.meta.dirname, "../..");

export function actionFiles(dir = path.join(repositoryRoot, "app")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return actionFiles(full);
    return /^actions\.tsx?$/.test(entry.name) ? [full] : [];
  });
}
