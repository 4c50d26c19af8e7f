import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = { title: "Keyhook", description: "Exactly-once key lifecycle webhooks" };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request, never prerendered at build: its scripts must carry the
  // nonce of the response's Content-Security-Policy (proxy.ts), which only exists per request.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
