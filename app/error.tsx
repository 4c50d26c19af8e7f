"use client";
// Errors the dashboard's own boundary cannot catch: those of its layout (the signed-in user is
// loaded there, so a database outage lands here).
import { PageError } from "@/components/page-error";

export default function AppError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-6xl px-4 pb-24 pt-6">
      <PageError {...props} />
    </main>
  );
}
