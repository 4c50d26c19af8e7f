import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { formatTime, plural } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { ROLE_NAMES } from "@/components/ui/role-names";
import { Table, Td, Th } from "@/components/ui/table";
import type { Role } from "@/lib/core/auth/actor";
import { listUsers, type UserStatus } from "@/lib/views/users/list-users";
import { requirePageActor } from "../../_lib/session";
import { CreateUserForm, UserRowActions } from "./user-forms";

export const metadata = { title: "Users · Keyhook" };

function StatusBadge({ status }: { status: UserStatus }) {
  if (status.kind === "disabled") return <Badge tone="red">disabled</Badge>;
  if (status.kind === "locked") return <Badge tone="amber">locked until {formatTime(status.until)}</Badge>;
  return <Badge tone="green">active</Badge>;
}

export default async function UsersPage() {
  const actor = await requirePageActor("users.view");
  const { users, districts } = await listUsers({ actor });
  return (
    <>
      <PageHeader
        title="Users"
        description="Who may sign in, with which role and district. Changes apply on the user's next request."
      />
      <div className="space-y-6">
        <Card title="Create a user">
          <CreateUserForm districts={districts} />
        </Card>
        <Card title="All users">
          {users.length === 0 ? (
            <EmptyState title="No users yet" />
          ) : (
            <Table label="Users" stack>
              <thead>
                <tr>
                  <Th>User</Th>
                  <Th>Role</Th>
                  <Th>District</Th>
                  <Th>Status</Th>
                  <Th>Last sign-in</Th>
                  <Th>Actions</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {users.map((user) => (
                  <tr key={user.id} data-user-email={user.email}>
                    <Td>
                      <div className="break-all">{user.email}</div>
                      <div className="text-xs text-slate-500">{user.name ?? "—"}</div>
                    </Td>
                    <Td label="Role" className="whitespace-nowrap">
                      {ROLE_NAMES[user.role as Role] ?? user.role}
                    </Td>
                    <Td label="District" className="whitespace-nowrap font-mono text-xs">
                      {user.tenantId ?? "—"}
                    </Td>
                    <Td label="Status">
                      <StatusBadge status={user.status} />
                      <div className="text-xs text-slate-500" data-testid="second-factors">
                        {user.factors > 0 ? plural(user.factors, "second factor") : "no second factor"}
                      </div>
                      {user.failedLogins > 0 ? (
                        <div className="text-xs text-slate-500">{plural(user.failedLogins, "failed sign-in")}</div>
                      ) : null}
                    </Td>
                    <Td label="Last sign-in" className="whitespace-nowrap text-xs">
                      {formatTime(user.lastLoginAt)}
                    </Td>
                    <Td className="md:min-w-64">
                      <UserRowActions user={user} districts={districts} isSelf={user.id === actor.id} />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
      </div>
    </>
  );
}
