// The Deliveries page's filters, parsed in lib/ like the ledger's and the audit log's: defaults,
// form messages for bad input, and the query string that reproduces them.
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { deliveryFiltersToQuery, parseBulkWindow, parseDeliveryFilters } from "@/lib/deliveries/delivery-filters";

const now = new Date("2026-12-01T08:18:04.750Z");

describe("the Deliveries page's filters", () => {
  it("no parameters: the last 24 h up to now (this second included), all statuses, page 1", () => {
    const { filters, errors } = parseDeliveryFilters({}, now);
    expect(errors).toEqual([]);
    expect(filters).toEqual({
      since: new Date("2026-11-30T08:18:04Z"),
      until: new Date("2026-12-01T08:18:05Z"),
      openEnded: true,
      status: "all",
      tenantId: undefined,
      eventId: undefined,
      page: 1,
      providerCursor: undefined,
    });
    expect(deliveryFiltersToQuery(filters).toString()).toBe("from=2026-11-30T08%3A18%3A04");
  });

  it("reads every parameter and writes back the ones that are not defaults", () => {
    const { filters, errors } = parseDeliveryFilters(
      {
        from: "2026-12-01 07:00",
        to: "2026-12-01 08:00:00Z",
        status: "failed",
        tenant: " district-4417 ",
        event: "evt_1",
        page: "3",
        pcursor: "c1",
      },
      now,
    );
    expect(errors).toEqual([]);
    expect(filters).toMatchObject({ openEnded: false, status: "failed", tenantId: "district-4417", page: 3 });
    expect(Object.fromEntries(deliveryFiltersToQuery(filters, 4))).toEqual({
      from: "2026-12-01T07:00:00",
      to: "2026-12-01T08:00:00",
      status: "failed",
      tenant: "district-4417",
      event: "evt_1",
      page: "4",
    });
  });

  it("bad input becomes form messages, never an exception", () => {
    expect(parseDeliveryFilters({ from: "yesterday", status: "lost" }, now).errors).toEqual([
      "From is not a date and time (use YYYY-MM-DD HH:MM:SS, UTC).",
      "Status must be one of all, failed, mismatched.",
    ]);
    expect(parseDeliveryFilters({ from: "2026-12-02", to: "2026-12-01" }, now).errors).toEqual([
      "From must be before To.",
    ]);
  });

  it("the bulk actions need both ends of the window", () => {
    expect(parseBulkWindow({ from: "2026-12-01T07:00:00", to: "2026-12-01T08:00:00" })).toEqual({
      since: new Date("2026-12-01T07:00:00Z"),
      until: new Date("2026-12-01T08:00:00Z"),
    });
    expect(() => parseBulkWindow({ from: "2026-12-01T07:00:00", to: "" })).toThrow(AppError);
    expect(() => parseBulkWindow({ from: "soon", to: "2026-12-01T08:00:00" })).toThrow(/From is not a date/);
  });
});
