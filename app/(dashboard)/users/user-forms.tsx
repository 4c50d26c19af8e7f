// The Users page's forms. Server components: each wraps the client ActionForm, which reports
// the action's result (or its validation error) next to its button.
import { ActionForm } from "@/components/action-form";
import { TextField } from "@/components/ui/fields";
import type { UserView } from "@/lib/views/users/list-users";
import {
  createUserAction,
  disableUserAction,
  enableUserAction,
  resetFactorsAction,
  unlockUserAction,
  updateUserAction,
} from "./actions";
import { RoleDistrictFields } from "./role-district-fields";

type District = { id: string; name: string | null };

export function CreateUserForm({ districts }: { districts: District[] }) {
  return (
    <ActionForm action={createUserAction} submitLabel="Create user" className="max-w-3xl">
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField label="Email" name="email" type="email" required />
        <TextField label="Name" name="name" />
        <RoleDistrictFields districts={districts} defaultRole="district_admin" defaultTenantId={null} />
        <TextField
          label="Initial password (at least 12 characters; leave empty to generate one)"
          name="password"
          type="password"
        />
      </div>
    </ActionForm>
  );
}

export function UserRowActions({
  user,
  districts,
  isSelf,
}: {
  user: UserView;
  districts: District[];
  isSelf: boolean;
}) {
  return (
    <div className="space-y-3">
      {/* Your own role, and disabling yourself, are changed by another platform admin (see lib/operations/users). */}
      {isSelf ? (
        <p className="text-xs text-slate-500">This is you: another platform admin changes your role or disables you.</p>
      ) : (
        <>
          <ActionForm action={updateUserAction} hidden={{ userId: user.id }} submitLabel="Save role" tone="secondary">
            <div className="grid gap-2 sm:grid-cols-2">
              <RoleDistrictFields districts={districts} defaultRole={user.role} defaultTenantId={user.tenantId} />
            </div>
          </ActionForm>
          {user.status.kind === "disabled" ? (
            <ActionForm action={enableUserAction} hidden={{ userId: user.id }} submitLabel="Enable" tone="secondary" />
          ) : (
            <ActionForm
              action={disableUserAction}
              hidden={{ userId: user.id }}
              submitLabel="Disable"
              tone="danger"
              confirm={{
                prompt: `Disable ${user.email}? Their next request is refused until someone enables them again.`,
                confirmLabel: "Yes, disable",
              }}
            />
          )}
          {user.factors > 0 ? (
            <ActionForm
              action={resetFactorsAction}
              hidden={{ userId: user.id }}
              submitLabel="Reset second factor"
              tone="secondary"
              confirm={{
                prompt: `Remove every second factor and recovery code of ${user.email}? Their sessions end, and they must enrol again at their next sign-in.`,
                confirmLabel: "Yes, reset",
              }}
            />
          ) : null}
        </>
      )}
      {user.status.kind === "locked" || user.failedLogins > 0 ? (
        <ActionForm
          action={unlockUserAction}
          hidden={{ userId: user.id }}
          submitLabel="Reset lockout"
          tone="secondary"
        />
      ) : null}
    </div>
  );
}
