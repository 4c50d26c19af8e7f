// `npm test` and `npm run test:e2e` start here: without the browser, say so in one line before
// minutes of integration tests and a `next build`, instead of eight identical launch errors.
import { accessSync, constants } from "node:fs";

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
try {
  accessSync(chromium, constants.X_OK);
} catch {
  console.error(
    `keyhook: the browser tests need Chromium at ${chromium}: install it with \`sudo apt-get install chromium\` (or set CHROMIUM_PATH to a Chromium binary)`,
  );
  process.exit(1);
}
