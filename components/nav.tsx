import Link from "next/link";
import type { Actor } from "@/lib/core/auth/actor";
import { can, type Permission } from "@/lib/core/auth/permissions";
import { LiveRefresh } from "./live-refresh";
import { ROLE_NAMES } from "./ui/role-names";
import { SignOutButton } from "./sign-out-button";

const items: { href: string; label: string; permission: Permission }[] = [
  { href: "/overview", label: "Overview", permission: "overview.view" },
  { href: "/alerts", label: "Alerts", permission: "alerts.view" },
  { href: "/districts", label: "Districts", permission: "districts.view" },
  { href: "/ledger", label: "Ledger", permission: "ledger.view" },
  { href: "/deliveries", label: "Deliveries", permission: "deliveries.view" },
  { href: "/quarantine", label: "Quarantine", permission: "quarantine.view" },
  { href: "/retention", label: "Retention", permission: "retention.view" },
  { href: "/readiness", label: "Readiness", permission: "readiness.view" },
  { href: "/audit", label: "Audit log", permission: "audit.view" },
  { href: "/users", label: "Users", permission: "users.view" },
  { href: "/settings", label: "Settings", permission: "settings.view" },
  { href: "/account", label: "Account security", permission: "account.view" },
];

// Only the pages this role may open are linked; the pages check again themselves.
export function Nav({
  actor,
  renderedAt,
  renderedToken,
}: {
  actor: Actor;
  renderedAt: string;
  renderedToken?: string;
}) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex items-center justify-between gap-4">
          <Link href="/overview" className="text-lg font-semibold">
            Keyhook
          </Link>
          <LiveRefresh renderedAt={renderedAt} renderedToken={renderedToken} />
        </div>
        <div className="flex min-w-0 items-center justify-between gap-3 text-sm text-slate-600">
          <span data-testid="signed-in-as" className="min-w-0 break-words text-xs sm:text-sm">
            {actor.email} · {ROLE_NAMES[actor.role]}
            {actor.tenantId ? ` · ${actor.tenantId}` : ""}
          </span>
          <SignOutButton />
        </div>
      </div>
      <nav aria-label="Main" className="mx-auto max-w-6xl px-4">
        <ul className="flex flex-wrap gap-1 pb-2 text-sm">
          {items
            .filter((item) => can(actor, item.permission))
            .map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  className="block whitespace-nowrap rounded-md px-3 py-2 text-slate-700 hover:bg-slate-100"
                >
                  {item.label}
                </Link>
              </li>
            ))}
        </ul>
      </nav>
    </header>
  );
}
