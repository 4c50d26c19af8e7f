// The webhook consumer a team would write with this stack and nothing more: verify the
// signature, then claim the event id and change the key in one interactive transaction.
import { Webhook } from "standardwebhooks";
import { prisma } from "../../../../lib/prisma";

export const dynamic = "force-dynamic";

// Created on the first request: `next build` loads this module without the secret.
let webhook: Webhook | undefined;

type KeyEvent = {
  id: string;
  type: "key.created" | "key.rotated" | "key.revoked";
  tenant_id: string;
  key_id: string;
  previous_key_id?: string;
  data?: { prefix?: string; scopes?: string[] };
};

export async function POST(request: Request) {
  const payload = await request.text();
  let event: KeyEvent;
  try {
    webhook ??= new Webhook(process.env.WEBHOOK_SECRET!);
    event = webhook.verify(payload, Object.fromEntries(request.headers)) as KeyEvent;
  } catch {
    return Response.json({ error: "invalid signature" }, { status: 401 });
  }

  const outcome = await prisma.$transaction(async (tx) => {
    const claim = await tx.webhookEvent.createMany({
      data: { id: event.id, tenantId: event.tenant_id },
      skipDuplicates: true,
    });
    if (claim.count === 0) return "duplicate";
    const revoke = event.type === "key.revoked" ? event.key_id : event.previous_key_id;
    if (revoke) {
      await tx.apiKey.updateMany({
        where: { tenantId: event.tenant_id, id: revoke },
        data: { status: "revoked" },
      });
    }
    if (event.type !== "key.revoked") {
      await tx.apiKey.create({
        data: {
          tenantId: event.tenant_id,
          id: event.key_id,
          status: "active",
          prefix: event.data?.prefix,
          scopes: event.data?.scopes ?? [],
        },
      });
    }
    return "applied";
  });
  return Response.json({ outcome });
}
