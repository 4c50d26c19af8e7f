"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { issueKey } from "@/lib/core/keys/issue-key";
import { revokeKey } from "@/lib/core/keys/revoke-key";
import { rotateKey } from "@/lib/core/keys/rotate-key";
import { action, text } from "../../../_lib/run-action";

const oneKey = z.object({ keyId: text(200) });
const byKeyId = { target: (input: { keyId: string }) => input.keyId };

export const revokeKeyAction = action(
  "key.revoke",
  oneKey,
  async (input, actor) => {
    const result = await revokeKey({ actor, keyId: input.keyId });
    revalidatePath(`/districts/${encodeURIComponent(result.tenantId)}`);
    // What was done, not a state that moves on: the row above shows the provider's confirmation.
    return result.outcome === "revoked"
      ? `Revoked ${result.keyId} here and sent the revoke to the provider.`
      : `${result.keyId} was already revoked.`;
  },
  byKeyId,
);

export const rotateKeyAction = action(
  "key.rotate",
  oneKey,
  async (input, actor) => {
    const result = await rotateKey({ actor, keyId: input.keyId });
    revalidatePath(`/districts/${encodeURIComponent(result.tenantId)}`);
    return result.staged
      ? `Rotation of ${input.keyId} requested from the provider; the new key appears here when its webhook arrives.`
      : `Rotation of ${input.keyId} was already requested.`;
  },
  byKeyId,
);

export const issueKeyAction = action(
  "key.issue",
  z.object({ tenantId: text(200), scopes: text(2000), requestToken: text(64) }),
  async (input, actor) => {
    const result = await issueKey({
      actor,
      tenantId: input.tenantId,
      scopes: input.scopes.split(/[\s,]+/),
      requestToken: input.requestToken,
    });
    revalidatePath(`/districts/${encodeURIComponent(input.tenantId)}`);
    return result.staged
      ? "New key requested from the provider; it appears here when its webhook arrives."
      : "This request was already sent; the new key appears here when its webhook arrives.";
  },
  { target: (input) => input.tenantId },
);
