// What a server action answers a form with (components/action-form.tsx shows it). `at` makes two
// identical answers in a row distinct, so the form shows the second one too.
// `field`: the form field an error is about (shown under it, the other fields kept as typed).
// `stepUp`: the action did not run; it needs a fresh second factor first (the ways this user has).
// `data`: what an action hands back to the form that asked (a new secret to show once).
export type StepUpMethod = "totp" | "passkey" | "recovery" | "sso";
export type ActionResult = {
  ok: boolean;
  message: string;
  at: number;
  field?: string;
  stepUp?: { methods: StepUpMethod[]; passkeyOptions?: string };
  data?: Record<string, string | string[]>;
};
