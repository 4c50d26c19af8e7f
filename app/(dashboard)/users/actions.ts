"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createUser } from "@/lib/operations/users/create-user";
import { disableUser, enableUser } from "@/lib/operations/users/set-user-disabled";
import { resetUserFactors } from "@/lib/operations/users/reset-user-factors";
import { unlockUser } from "@/lib/operations/users/unlock-user";
import { updateUser } from "@/lib/operations/users/update-user";
import { action, text, verbatim } from "../../_lib/run-action";

// The wrapper checks users.manage before reading the form; the lib function checks again.
const oneUser = z.object({ userId: text(100) });
const byUserId = { target: (input: { userId: string }) => input.userId };

export const createUserAction = action(
  "users.manage",
  // The password is not trimmed or shortened: taken exactly as typed (the service checks its length).
  z.object({ email: text(400), name: text(300), role: text(40), tenantId: text(300), password: verbatim() }),
  async (input, actor) => {
    const created = await createUser({
      actor,
      email: input.email,
      name: input.name,
      role: input.role,
      tenantId: input.tenantId,
      password: input.password,
    });
    revalidatePath("/users");
    return created.generatedPassword
      ? `Created ${created.email}. Initial password (shown only now, copy it): ${created.generatedPassword}`
      : `Created ${created.email}.`;
  },
  { target: (input) => input.email },
);

export const disableUserAction = action(
  "users.manage",
  oneUser,
  async (input, actor) => {
    const result = await disableUser({ actor, userId: input.userId });
    revalidatePath("/users");
    return result.changed
      ? `${result.email} disabled; their next request is refused.`
      : `${result.email} was already disabled.`;
  },
  byUserId,
);

export const enableUserAction = action(
  "users.manage",
  oneUser,
  async (input, actor) => {
    const result = await enableUser({ actor, userId: input.userId });
    revalidatePath("/users");
    return result.changed ? `${result.email} enabled.` : `${result.email} was already enabled.`;
  },
  byUserId,
);

export const unlockUserAction = action(
  "users.manage",
  oneUser,
  async (input, actor) => {
    const result = await unlockUser({ actor, userId: input.userId });
    revalidatePath("/users");
    return `${result.email} may sign in again at once.`;
  },
  byUserId,
);

export const updateUserAction = action(
  "users.manage",
  z.object({ userId: text(100), role: text(40), tenantId: text(300) }),
  async (input, actor) => {
    const result = await updateUser({ actor, userId: input.userId, role: input.role, tenantId: input.tenantId });
    revalidatePath("/users");
    return `${result.email} is now ${result.role.replace("_", " ")}${result.tenantId ? ` of ${result.tenantId}` : ""}.`;
  },
  byUserId,
);

export const resetFactorsAction = action(
  "users.manage",
  oneUser,
  async (input, actor) => {
    const result = await resetUserFactors({ actor, userId: input.userId });
    revalidatePath("/users");
    return `${result.email}'s second factors are reset (${result.removed} removed); their sessions ended, and they enrol again at their next sign-in.`;
  },
  byUserId,
);
