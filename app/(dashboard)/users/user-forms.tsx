// The Users page's forms. Server components: each wraps the client ActionForm, which reports
// the action's result (or its validation error) next to its button.
import { ActionForm } from "@/components/action-form";
import { SelectField, TextField } from "@/components/ui/fields";
import type { UserView } from "@/lib/users/list-users";
import { createUserAction, disableUserAction, enableUserAction, unlockUserAction, updateUserAction } from "./actions";

type District = { id: string; name: string | null };

const roleOptions = [
  { value: "district_admin", label: "District admin" },
  { value: "support", label: "Support" },
  { value: "platform_admin", label: "Platform admin" },
];

function districtOptions(districts: District[]) {
  return [
    { value: "", label: "— none (staff) —" },
    ...districts.map((d) => ({ value: d.id, label: d.name ? `${d.name} (${d.id})` : d.id })),
  ];
}

export function CreateUserForm({ districts }: { districts: District[] }) {
  return (
    <ActionForm action={createUserAction} submitLabel="Create user" className="max-w-3xl">
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField label="Email" name="email" type="email" required />
        <TextField label="Name" name="name" />
        <SelectField label="Role" name="role" defaultValue="district_admin" options={roleOptions} />
        <SelectField label="District" name="tenantId" options={districtOptions(districts)} />
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
      {/* Your own role, and disabling yourself, are changed by another platform admin (see lib/users). */}
      {isSelf ? (
        <p className="text-xs text-slate-500">This is you: another platform admin changes your role or disables you.</p>
      ) : (
        <>
          <ActionForm action={updateUserAction} hidden={{ userId: user.id }} submitLabel="Save role" tone="secondary">
            <div className="grid gap-2 sm:grid-cols-2">
              <SelectField label="Role" name="role" defaultValue={user.role} options={roleOptions} />
              <SelectField
                label="District"
                name="tenantId"
                defaultValue={user.tenantId ?? ""}
                options={districtOptions(districts)}
              />
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
