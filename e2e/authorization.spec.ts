// Pages and routes over HTTP, for every role (and nobody) × own and other district: the expected
// allow or deny, with zero unexpected allows. The finer matrix (every action's data access) is
// test/app/authorization-matrix.integration.test.ts.
import { type APIRequestContext } from "@playwright/test";
import { expect, test, apiAs, USERS } from "./support";

type Who = "anonymous" | "district_admin" | "support" | "platform_admin";
type Expect = "allow" | "deny" | "signin";

const OWN = "district-4417"; // the district admin's district
const OTHER = "district-2210";

test("every role × every page and route × own and other district", async ({ baseURL }) => {
  const contexts: Record<Who, APIRequestContext> = {
    anonymous: await apiAs(baseURL!, null),
    district_admin: await apiAs(baseURL!, USERS.districtAdmin),
    support: await apiAs(baseURL!, USERS.support),
    platform_admin: await apiAs(baseURL!, USERS.platformAdmin),
  };

  // Ledger ids of one event per district, from the platform admin's CSV export.
  const csv = await (await contexts.platform_admin.get("/ledger/export")).text();
  const idOf = (eventId: string) =>
    csv
      .split("\r\n")
      .find((line) => line.includes(`,${eventId},`))!
      .split(",")[0]!;
  const ownEvent = idOf("evt_demo_4417_1");
  const otherEvent = idOf("evt_demo_2210_1");

  const staffOnly = (who: Who): Expect =>
    who === "anonymous" ? "signin" : who === "district_admin" ? "deny" : "allow";
  const everyone = (who: Who): Expect => (who === "anonymous" ? "signin" : "allow");
  const ownOnly = (who: Who): Expect => (who === "anonymous" ? "signin" : "allow");
  const platformOnly = (who: Who): Expect =>
    who === "anonymous" ? "signin" : who === "platform_admin" ? "allow" : "deny";
  const otherDistrict = (who: Who): Expect =>
    who === "anonymous" ? "signin" : who === "district_admin" ? "deny" : "allow";

  const targets: [string, (who: Who) => Expect][] = [
    ["/", (who) => (who === "anonymous" ? "signin" : "allow")],
    ["/overview", everyone],
    ["/alerts", everyone],
    ["/alerts?state=all", everyone],
    ["/districts", everyone],
    [`/districts/${OWN}`, ownOnly],
    [`/districts/${OTHER}`, otherDistrict],
    ["/ledger", everyone],
    [`/ledger?tenant=${OWN}`, ownOnly],
    [`/ledger?tenant=${OTHER}`, otherDistrict],
    [`/ledger/${ownEvent}`, ownOnly],
    [`/ledger/${otherEvent}`, otherDistrict],
    ["/ledger/export", everyone],
    [`/ledger/export?tenant=${OTHER}`, otherDistrict],
    ["/deliveries", staffOnly],
    ["/quarantine", staffOnly],
    ["/retention", staffOnly],
    ["/audit", staffOnly],
    ["/audit/export", staffOnly],
    ["/users", platformOnly],
    ["/settings", platformOnly],
    ["/account", everyone],
    // The second-factor steps: a complete session is sent on (3xx), nobody to sign-in.
    ["/signin/factor", everyone],
    ["/signin/enrol", everyone],
  ];

  const unexpected: string[] = [];
  for (const [path, expected] of targets) {
    for (const who of Object.keys(contexts) as Who[]) {
      const response = await contexts[who].get(path);
      const status = response.status();
      const location = response.headers()["location"] ?? "";
      const actual: Expect =
        status >= 300 && status < 400 && /\/signin/.test(location)
          ? "signin"
          : status === 404
            ? "deny"
            : status === 200 || (status >= 300 && status < 400)
              ? "allow"
              : "deny";
      const want = expected(who);
      if (actual !== want)
        unexpected.push(`${who} GET ${path}: expected ${want}, got ${actual} (${status} ${location})`);
      // A denial must not leak the other district's data in its body either.
      if (actual !== "allow" && status !== 200) expect(await response.text()).not.toContain("Riverside County Schools");
    }
  }
  expect(unexpected).toEqual([]);

  // A district admin's unfiltered lists hold only their district.
  const daCsv = await (await contexts.district_admin.get("/ledger/export")).text();
  expect(daCsv).toContain(OWN);
  expect(daCsv).not.toContain(OTHER);
  // "Districts" sends a district admin straight to their own district.
  const districts = await contexts.district_admin.get("/districts");
  expect(districts.headers()["location"]).toMatch(new RegExp(`/districts/${OWN}$`));
  const own = await (await contexts.district_admin.get(`/districts/${OWN}`)).text();
  expect(own).toContain("Maple Valley Unified");
  expect(own).not.toContain("Riverside County Schools");

  for (const context of Object.values(contexts)) await context.dispose();
});
