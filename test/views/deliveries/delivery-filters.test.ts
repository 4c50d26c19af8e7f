// The Deliveries page's filters, parsed in lib/ like the ledger's and the audit log's: defaults,
// form messages for bad input, and the parameters that reproduce them (the bulk forms carry them).
import { describe, expect, it } from "vitest";
import { deliveryFilterParams, parseDeliveryFilters, parseDeliveryPage } from "@/lib/views/deliveries/delivery-filters";

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
    });
    expect(parseDeliveryPage({})).toEqual({ page: 1, providerCursor: undefined });
    expect(deliveryFilterParams(filters)).toEqual({ from: "2026-11-30T08:18:04" });
    // Pinned: a form submitted later means the window the page showed.
    expect(deliveryFilterParams(filters, { pinned: true })).toEqual({
      from: "2026-11-30T08:18:04",
      to: "2026-12-01T08:18:05",
    });
  });

  it("reads every parameter and writes back the ones that are not defaults", () => {
    const params = {
      from: "2026-12-01 07:00",
      to: "2026-12-01 08:00:00Z",
      status: "failed",
      tenant: " district-4417 ",
      event: "evt_1",
      page: "3",
      pcursor: "c1",
    };
    const { filters, errors } = parseDeliveryFilters(params, now);
    expect(errors).toEqual([]);
    expect(filters).toMatchObject({ openEnded: false, status: "failed", tenantId: "district-4417" });
    expect(parseDeliveryPage(params)).toEqual({ page: 3, providerCursor: "c1" });
    expect(deliveryFilterParams(filters)).toEqual({
      from: "2026-12-01T07:00:00",
      to: "2026-12-01T08:00:00",
      status: "failed",
      tenant: "district-4417",
      event: "evt_1",
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
});
