"use client";
// Role and district together, so the form can never hold a pair the service refuses: a district
// admin must choose their district (there is no default: a wrong one would show them another
// district's keys), staff have none (they see every district).
import { useEffect, useRef, useState } from "react";
import { SelectField } from "@/components/ui/fields";
import { ROLE_OPTIONS } from "@/components/ui/role-names";

type District = { id: string; name: string | null };

export function RoleDistrictFields({
  districts,
  defaultRole,
  defaultTenantId,
}: {
  districts: District[];
  defaultRole: string;
  defaultTenantId: string | null;
}) {
  const [role, setRole] = useState(defaultRole);
  // The form resets itself after a success: the district field follows the role back.
  const marker = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const form = marker.current?.closest("form");
    const onReset = () => setRole(defaultRole);
    form?.addEventListener("reset", onReset);
    return () => form?.removeEventListener("reset", onReset);
  }, [defaultRole]);
  return (
    <>
      <span ref={marker} hidden />
      <SelectField label="Role" name="role" defaultValue={defaultRole} options={ROLE_OPTIONS} onChange={setRole} />
      {role === "district_admin" ? (
        <SelectField
          label="District"
          name="tenantId"
          defaultValue={defaultTenantId ?? ""}
          required
          options={[
            { value: "", label: "Choose their district…", disabled: true },
            ...districts.map((d) => ({ value: d.id, label: d.name ? `${d.name} (${d.id})` : d.id })),
          ]}
        />
      ) : (
        <div className="text-sm text-slate-600">
          <span className="block font-medium text-slate-700">District</span>
          <span className="mt-1 block py-2">None: staff see every district.</span>
          <input type="hidden" name="tenantId" value="" />
        </div>
      )}
    </>
  );
}
