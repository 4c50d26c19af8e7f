// Sign-in's return address: a path on this site, never another site.
import { describe, expect, it } from "vitest";
import { callbackTarget } from "@/app/signin/callback-target";

describe("callbackTarget", () => {
  it.each([
    ["/districts/district-4417", "/districts/district-4417"],
    ["/ledger?tenant=district-4417&outcome=applied", "/ledger?tenant=district-4417&outcome=applied"],
    ["/deliveries#top", "/deliveries#top"],
  ])("follows %s", (raw, expected) => expect(callbackTarget(raw)).toBe(expected));

  it.each([
    "https://attacker.example/x",
    "//attacker.example/x",
    "/\\attacker.example",
    "\\\\attacker.example",
    "javascript:alert(1)",
    "/\tattacker",
    "http:/attacker.example",
    "",
    undefined,
    ["//attacker.example"],
    "/signin?callbackUrl=/x",
    "/api/auth/signout",
  ])("ignores %j", (raw) => expect(callbackTarget(raw)).toBe("/overview"));
});
