import "server-only";
// Demo districts and key histories, applied through the real claim-and-apply path so the demo
// shows states the product can actually reach. Deterministic event ids: running it again only
// produces duplicates.
import { prisma, type Db } from "../../core/db/client";
import { applyKeyEvent } from "../../core/ingest/apply-key-event";
import { parseEvent } from "../../core/ingest/event-schema";
import { buildKeyEvent } from "../provider/signed-delivery";
import { DEMO_KEY_HISTORY, DEMO_TENANTS } from "./demo-data";
import { seedDemoUsers } from "./seed-demo-users";

export async function seedDemoData(db: Db = prisma): Promise<{ applied: number; duplicates: number }> {
  for (const tenant of DEMO_TENANTS) {
    await db.tenant.upsert({ where: { id: tenant.id }, create: tenant, update: { name: tenant.name } });
  }
  let applied = 0;
  let duplicates = 0;
  for (const input of DEMO_KEY_HISTORY) {
    const body = buildKeyEvent(input);
    const parsed = parseEvent(body);
    if (!parsed.ok) throw new Error(`demo event ${input.id} is invalid: ${parsed.error}`);
    const rawBody = JSON.stringify(body);
    const result = await applyKeyEvent(
      {
        event: parsed.parsed.event,
        payloadJson: rawBody,
        receivedAt: input.occurredAt ?? new Date(),
        receipt: { webhookId: input.id, bodyBytes: Buffer.byteLength(rawBody), handlerMicros: 0, source: "replay" },
      },
      db,
    );
    if (result.outcome === "duplicate") duplicates++;
    else applied++;
  }
  // One sign-in per role for the dashboard (lib/operations/demo/demo-data.ts; printed by the launcher).
  await seedDemoUsers(db);
  return { applied, duplicates };
}
