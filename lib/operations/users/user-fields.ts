import "server-only";
// What the user services share: the zod rules for a user's fields, the role ↔ district rule, and
// loading the user an action names. A field error is a bad_request whose message the form shows.
import { z } from "zod";
import type { DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { ROLES, type Role } from "../../core/auth/actor";

/** Bytes, not characters: bcrypt ignores everything after the 72nd byte of a password. */
const BCRYPT_MAX_BYTES = 72;
const MIN_PASSWORD_LENGTH = 12;

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(320, "email is too long")
  .pipe(z.email("enter a valid email address"));

export const nameSchema = z.string().trim().max(200, "name must be at most 200 characters");

export const roleSchema = z.enum(ROLES, { error: "role must be district admin, support or platform admin" });

export const districtSchema = z.string().trim().max(200, "district id is too long");

export const passwordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `the password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .refine(
    (p) => Buffer.byteLength(p, "utf8") <= BCRYPT_MAX_BYTES,
    `the password must be at most ${BCRYPT_MAX_BYTES} bytes`,
  );

/** `field`: the form field the value came from, so the form shows the message next to it. */
export function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown, field?: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]!.message, { field });
  return parsed.data;
}

/**
 * A district admin belongs to exactly one existing district; staff belong to none (a stray
 * district on a support account would be misleading, since staff see every district anyway).
 */
export async function districtForRole(role: Role, tenantId: string, db: DbOrTx): Promise<string | null> {
  if (role !== "district_admin") {
    if (tenantId)
      throw new AppError(
        "bad_request",
        "only a district admin is assigned a district; leave District empty for staff",
        {
          field: "tenantId",
        },
      );
    return null;
  }
  if (!tenantId) throw new AppError("bad_request", "a district admin needs a district", { field: "tenantId" });
  const tenant = await db.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) throw new AppError("bad_request", `district ${tenantId} does not exist`, { field: "tenantId" });
  return tenant.id;
}

export async function findUserOrThrow(userId: string, db: DbOrTx) {
  const user = userId ? await db.user.findUnique({ where: { id: userId.slice(0, 100) } }) : null;
  if (!user) throw new AppError("not_found", "not found");
  return user;
}
