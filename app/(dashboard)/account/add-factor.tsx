"use client";
import { useRouter } from "next/navigation";
import type { ActionResult } from "@/components/action-result";
import { EnrolFactor } from "@/components/factors/enrol-factor";

type Action = (previous: ActionResult | null, form: FormData) => Promise<ActionResult>;

export function AddFactor(props: {
  startTotp: Action;
  startPasskey: Action;
  issueRecoveryCodes: Action;
  passkeysAvailable: boolean;
  firstFactor: boolean;
}) {
  const router = useRouter();
  return <EnrolFactor {...props} onFinished={() => router.refresh()} />;
}
