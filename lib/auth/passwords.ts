// Password hashing with bcrypt (cost 12 in production). bcryptjs is pure JS: no native build.
import bcrypt from "bcryptjs";
import { env } from "../env";

const cost = () => (env().NODE_ENV === "production" ? 12 : 10);

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, cost());
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

// Compared against when the email is unknown, so a wrong email costs the same time as a wrong
// password and response times do not reveal which accounts exist.
let timingDummyHash: Promise<string> | undefined;

export async function burnPasswordCheck(password: string): Promise<void> {
  timingDummyHash ??= bcrypt.hash("keyhook-timing-dummy", cost());
  await bcrypt.compare(password, await timingDummyHash);
}
