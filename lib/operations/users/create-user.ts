import "server-only";
// A platform admin creates an account with an initial password, typed or generated. A generated
// password is returned once, for the admin to hand over; only its bcrypt hash is stored.
import { randomBytes } from "node:crypto";
import { prisma, type DbOrTx } from "../../core/db/client";
import { AppError } from "../../core/errors";
import { recordAudit } from "../../core/audit/record-audit";
import { auditActor, type Actor, type Role } from "../../core/auth/actor";
import { hashPassword } from "../../core/auth/passwords";
import { authorize } from "../../core/auth/permissions";
import { Prisma } from "../../generated/prisma/client";
import {
  districtForRole,
  emailSchema,
  nameSchema,
  parseOrThrow,
  passwordSchema,
  roleSchema,
  districtSchema,
} from "./user-fields";

type CreateUserOptions = {
  actor: Actor;
  email: string;
  name: string;
  role: string;
  tenantId: string;
  /** Empty or omitted: generate one and return it. */
  password?: string;
};

type CreatedUser = {
  id: string;
  email: string;
  role: Role;
  tenantId: string | null;
  generatedPassword: string | null;
};

export const DUPLICATE_EMAIL = "a user with this email exists";

export async function createUser(options: CreateUserOptions, db: DbOrTx = prisma): Promise<CreatedUser> {
  authorize(options.actor, "users.manage");
  const email = parseOrThrow(emailSchema, options.email, "email");
  const name = parseOrThrow(nameSchema, options.name, "name");
  const role = parseOrThrow(roleSchema, options.role, "role");
  const requestedDistrict = parseOrThrow(districtSchema, options.tenantId, "tenantId");
  // 18 random bytes → 24 base64url characters: well above the minimum, and easy to copy.
  const generatedPassword = options.password ? null : randomBytes(18).toString("base64url");
  const password = parseOrThrow(passwordSchema, options.password || generatedPassword, "password");
  const passwordHash = await hashPassword(password);

  try {
    return await db.$transaction(async (tx) => {
      const tenantId = await districtForRole(role, requestedDistrict, tx);
      // No look-up first: the unique index on email decides between two concurrent creates.
      const user = await tx.user.create({ data: { email, name: name || null, role, tenantId, passwordHash } });
      await recordAudit(
        {
          actor: auditActor(options.actor),
          action: "user.create",
          tenantId,
          target: email,
          outcome: "ok",
          details: { userId: user.id, role, passwordGenerated: generatedPassword !== null },
        },
        tx,
      );
      return { id: user.id, email, role, tenantId, generatedPassword };
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new AppError("conflict", DUPLICATE_EMAIL, { field: "email" });
    throw error;
  }
}
