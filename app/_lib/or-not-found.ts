import "server-only";
// The one not-found rule of the pages: a lib read that refuses with not_found (no such row, or
// another district's) is the page's 404, exactly like a page that does not exist.
import { notFound } from "next/navigation";
import { isAppError } from "@/lib/core/errors";

export async function orNotFound<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isAppError(error, "not_found")) notFound();
    throw error;
  }
}
