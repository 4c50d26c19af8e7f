// The one district scope: a district admin is pinned to their district whatever they ask for,
// staff see every district but the readiness canary, and asking for another district or for the
// canary is answered as not found.
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/core/auth/actor";
import { isAppError } from "@/lib/core/errors";
import { CANARY_TENANT_ID } from "@/lib/core/tenancy/canary";
import { districtScope, inScope, tenantOrNoneWhere, tenantWhere } from "@/lib/core/tenancy/district-scope";

const support: Actor = { id: "u_s", email: "s@keyhook.test", name: null, role: "support", tenantId: null };
const districtAdmin: Actor = { ...support, id: "u_d", role: "district_admin", tenantId: "district-1" };

const notFound = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return isAppError(error, "not_found");
  }
  return false;
};

describe("districtScope", () => {
  it("pins a district admin to their district, and refuses another as not found", () => {
    expect(districtScope(districtAdmin)).toEqual({ kind: "district", tenantId: "district-1" });
    expect(districtScope(districtAdmin, "district-1")).toEqual({ kind: "district", tenantId: "district-1" });
    expect(notFound(() => districtScope(districtAdmin, "district-2"))).toBe(true);
  });

  it("gives staff every district but the canary, or the one they ask for, never the canary", () => {
    const every = districtScope(support);
    expect(tenantWhere(every)).toEqual({ tenantId: { not: CANARY_TENANT_ID } });
    expect(tenantOrNoneWhere(every)).toEqual({ OR: [{ tenantId: null }, { tenantId: { not: CANARY_TENANT_ID } }] });
    expect(inScope(every, "district-9")).toBe(true);
    expect(inScope(every, null)).toBe(true);
    expect(inScope(every, CANARY_TENANT_ID)).toBe(false);
    expect(districtScope(support, "district-2")).toEqual({ kind: "district", tenantId: "district-2" });
    expect(notFound(() => districtScope(support, CANARY_TENANT_ID))).toBe(true);
  });

  it("never lets a district admin's scope take the rows of no district", () => {
    expect(tenantOrNoneWhere(districtScope(districtAdmin))).toEqual({ tenantId: "district-1" });
    expect(inScope(districtScope(districtAdmin), null)).toBe(false);
  });
});
