"use client";
import { signOut } from "next-auth/react";
import { buttonClass } from "./ui/fields";

export function SignOutButton() {
  return (
    <button
      type="button"
      className={`${buttonClass.secondary} shrink-0 whitespace-nowrap`}
      onClick={() => void signOut({ callbackUrl: "/signin" })}
    >
      Sign out
    </button>
  );
}
