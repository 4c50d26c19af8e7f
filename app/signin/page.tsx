import { redirect } from "next/navigation";
import { oidcEnabled } from "@/auth";
import { ROLE_NAMES } from "@/components/ui/role-names";
import { DEMO_PASSWORD, DEMO_USERS } from "@/lib/auth/demo-users";
import { env } from "@/lib/env";
import { signInErrorMessage } from "@/lib/auth/sign-in-messages";
import { currentActor } from "../_lib/session";
import { callbackTarget } from "./callback-target";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Keyhook" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const after = callbackTarget(params.callbackUrl);
  if (await currentActor()) redirect(after);
  const code = typeof params.error === "string" ? params.error : undefined;
  // Only known codes become their sentence; any other text in the URL becomes one generic sentence.
  const error = signInErrorMessage(code);
  const oidc = oidcEnabled();
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <h1 className="text-2xl font-semibold">Sign in to Keyhook</h1>
      <p className="mt-1 text-sm text-slate-600">Key lifecycle webhooks, exactly once.</p>
      <SignInForm
        initialError={error}
        oidcName={oidc?.name ?? null}
        callbackPath={after}
        demo={env().NODE_ENV === "development" ? demoSignIns() : null}
      />
    </main>
  );
}

// `npm run dev` seeds one account per role with a public password: offered here, in development
// only (a production build never shows them, whatever it seeded).
function demoSignIns() {
  return {
    password: DEMO_PASSWORD,
    accounts: DEMO_USERS.map((user) => ({
      email: user.email,
      label: `${ROLE_NAMES[user.role]}${user.tenantId ? ` of ${user.tenantId}` : ""}`,
    })),
  };
}
