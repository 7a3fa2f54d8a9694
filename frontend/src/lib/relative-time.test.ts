import { describe, expect, it } from "vitest";
import { relativeTime } from "./relative-time";

const now = Date.parse("2026-06-15T12:00:00.000Z");

describe("relativeTime", () => {
  it("says how long ago in English", () => {
    expect(relativeTime("2026-06-15T11:55:00.000Z", now, "en")).toBe("5 minutes ago");
    expect(relativeTime("2026-06-14T12:00:00.000Z", now, "en")).toBe("yesterday");
    expect(relativeTime("2026-06-15T11:59:50.000Z", now, "en")).toBe("now");
  });

  it("says it in Vietnamese", () => {
    expect(relativeTime("2026-06-15T11:55:00.000Z", now, "vi")).toBe("5 phút trước");
    expect(relativeTime("2026-06-12T12:00:00.000Z", now, "vi")).toBe("3 ngày trước");
  });
});
