"use server";
import { revalidatePath } from "next/cache";
import { issueKey } from "@/lib/keys/issue-key";
import { revokeKey } from "@/lib/keys/revoke-key";
import { rotateKey } from "@/lib/keys/rotate-key";
import { field, runAction, type ActionResult } from "../../../_lib/run-action";

export async function revokeKeyAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("key.revoke", async (actor) => {
    const result = await revokeKey({ actor, keyId: field(form, "keyId", 200) });
    revalidatePath(`/districts/${encodeURIComponent(result.tenantId)}`);
    return result.outcome === "revoked"
      ? `Key ${result.keyId} revoked, awaiting provider confirmation.`
      : `Key ${result.keyId} was already revoked.`;
  });
}

export async function rotateKeyAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("key.rotate", async (actor) => {
    const keyId = field(form, "keyId", 200);
    const result = await rotateKey({ actor, keyId });
    return result.staged
      ? `Rotation of ${keyId} requested from the provider; the new key appears here when its webhook arrives.`
      : `Rotation of ${keyId} was already requested.`;
  });
}

export async function issueKeyAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("key.issue", async (actor) => {
    const scopes = field(form, "scopes", 2000).split(/[\s,]+/);
    const result = await issueKey({ actor, tenantId: field(form, "tenantId", 200), scopes, requestToken: field(form, "requestToken", 64) });
    return result.staged
      ? "New key requested from the provider; it appears here when its webhook arrives."
      : "This request was already sent.";
  });
}
