import { describe, expect, it } from "vitest";
import { HOME_PATH, loginPath, safeNextPath } from "./next-path";

describe("safeNextPath", () => {
  it("keeps a page of the studio with its query and hash", () => {
    expect(safeNextPath("/workflows/wf_1?tab=json#top")).toBe("/workflows/wf_1?tab=json#top");
  });

  it("refuses absolute, protocol-relative and backslash addresses", () => {
    expect(safeNextPath("https://evil.example/")).toBe(HOME_PATH);
    expect(safeNextPath("//evil.example/")).toBe(HOME_PATH);
    expect(safeNextPath("/\\evil.example/")).toBe(HOME_PATH);
    expect(safeNextPath("javascript:alert(1)")).toBe(HOME_PATH);
  });

  it("refuses control characters and a missing value", () => {
    expect(safeNextPath("/workflows\n/x")).toBe(HOME_PATH);
    expect(safeNextPath(null)).toBe(HOME_PATH);
    expect(safeNextPath("")).toBe(HOME_PATH);
  });

  it("never sends back to the login or setup page", () => {
    expect(safeNextPath("/login?next=/x")).toBe(HOME_PATH);
    expect(safeNextPath("/setup")).toBe(HOME_PATH);
  });
});

describe("loginPath", () => {
  it("carries the page to come back to and the reason", () => {
    const url = new URL(loginPath("/workflows/a b", "AUTH_TOKEN_EXPIRED"), "http://studio.test");
    expect(url.pathname).toBe("/login");
    expect(url.searchParams.get("next")).toBe("/workflows/a b");
    expect(url.searchParams.get("reason")).toBe("AUTH_TOKEN_EXPIRED");
  });

  it("leaves out the home page and an unsafe target", () => {
    expect(loginPath(HOME_PATH)).toBe("/login");
    expect(loginPath("//evil.example")).toBe("/login");
  });
});
