"use client";
import { signOut } from "next-auth/react";
import { useRouter } from "next/navigation";
import type { ActionResult, StepUpMethod } from "@/components/action-result";
import { FactorPrompt } from "@/components/factors/factor-prompt";

type Action = (previous: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function FactorStep({
  methods,
  passkeyChallenge,
  callbackPath,
  ssoName,
}: {
  methods: StepUpMethod[];
  passkeyChallenge: Action;
  callbackPath: string;
  ssoName: string | null;
}) {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-4">
      <FactorPrompt
        methods={methods}
        ssoName={ssoName}
        passkeyOptions={async () => {
          const result = await passkeyChallenge(null, new FormData());
          return typeof result.data?.options === "string" ? result.data.options : null;
        }}
        onDone={(method) => {
          // A recovery code spent: Account security says how many are left.
          router.replace(
            method === "recovery"
              ? `/account?${new URLSearchParams({ recovery: "used", callbackUrl: callbackPath })}`
              : callbackPath,
          );
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
