// `npm run db:seed`: demo districts, keys and events on DATABASE_URL (the launcher sets it).
import { disconnectDb } from "../lib/core/db/client";
import { seedDemoData } from "../lib/operations/demo/seed-demo-data";

try {
  const { applied, duplicates } = await seedDemoData();
  process.stdout.write(`keyhook: demo data ready (${applied} events applied, ${duplicates} already present)\n`);
} finally {
  await disconnectDb();
}
