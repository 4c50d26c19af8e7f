"use client";
import { signOut } from "next-auth/react";
import { useRouter } from "next/navigation";
import type { ActionResult } from "@/components/action-result";
import { EnrolFactor } from "@/components/factors/enrol-factor";

type Action = (previous: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function EnrolStep(props: {
  startTotp: Action;
  startPasskey: Action;
  issueRecoveryCodes: Action;
  passkeysAvailable: boolean;
  callbackPath: string;
}) {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-4">
      <EnrolFactor
        {...props}
        firstFactor
        onFinished={() => {
          router.replace(props.callbackPath);
          router.refresh();
        }}
      />
      <button
        type="button"
        className="self-start text-sm text-slate-600 underline underline-offset-2 hover:text-slate-900"
        onClick={() => void signOut({ callbackUrl: "/signin" })}
      >
        Cancel and sign out
      </button>
    </div>
  );
}
