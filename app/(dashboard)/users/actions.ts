"use server";
import { revalidatePath } from "next/cache";
import { authorize } from "@/lib/auth/permissions";
import { createUser } from "@/lib/users/create-user";
import { disableUser, enableUser } from "@/lib/users/set-user-disabled";
import { unlockUser } from "@/lib/users/unlock-user";
import { updateUser } from "@/lib/users/update-user";
import { field, runAction, type ActionResult } from "../../_lib/run-action";

// Each action authorizes before reading the form; the lib function checks again, so a caller
// that skips this page (a crafted POST to the action id) is refused all the same.

export async function createUserAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("user.create", async (actor) => {
    authorize(actor, "users.manage");
    // Not trimmed or shortened: a password is taken exactly as typed (the service checks its length).
    const password = form.get("password");
    const created = await createUser({
      actor,
      email: field(form, "email", 400),
      name: field(form, "name", 300),
      role: field(form, "role", 40),
      tenantId: field(form, "tenantId", 300),
      password: typeof password === "string" ? password : "",
    });
    revalidatePath("/users");
    return created.generatedPassword
      ? `Created ${created.email}. Initial password (shown only now, copy it): ${created.generatedPassword}`
      : `Created ${created.email}.`;
  });
}

export async function disableUserAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("user.disable", async (actor) => {
    authorize(actor, "users.manage");
    const result = await disableUser({ actor, userId: field(form, "userId", 100) });
    revalidatePath("/users");
    return result.changed ? `${result.email} disabled; their next request is refused.` : `${result.email} was already disabled.`;
  });
}

export async function enableUserAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("user.enable", async (actor) => {
    authorize(actor, "users.manage");
    const result = await enableUser({ actor, userId: field(form, "userId", 100) });
    revalidatePath("/users");
    return result.changed ? `${result.email} enabled.` : `${result.email} was already enabled.`;
  });
}

export async function unlockUserAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("user.unlock", async (actor) => {
    authorize(actor, "users.manage");
    const result = await unlockUser({ actor, userId: field(form, "userId", 100) });
    revalidatePath("/users");
    return `${result.email} may sign in again at once.`;
  });
}

export async function updateUserAction(_previous: ActionResult | null, form: FormData): Promise<ActionResult> {
  return runAction("user.update", async (actor) => {
    authorize(actor, "users.manage");
    const result = await updateUser({ actor, userId: field(form, "userId", 100), role: field(form, "role", 40), tenantId: field(form, "tenantId", 300) });
    revalidatePath("/users");
    return `${result.email} is now ${result.role.replace("_", " ")}${result.tenantId ? ` of ${result.tenantId}` : ""}.`;
  });
}
