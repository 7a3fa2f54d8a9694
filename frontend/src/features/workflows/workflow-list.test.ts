import { describe, expect, it } from "vitest";
import type { WorkflowSummary } from "@/lib/api";
import { filterAndSort, parseSort, searchable } from "./workflow-list";

function summary(id: string, name: string, updated_at: string, description: string | null = null): WorkflowSummary {
  return { id, name, description, version: 1, content_hash: "h", created_at: updated_at, updated_at };
}

const items = [
  summary("a", "Quy trình Đặt hàng", "2026-01-03T00:00:00.000Z", "Xử lý đơn"),
  summary("b", "alpha 10", "2026-01-01T00:00:00.000Z"),
  summary("c", "Alpha 9", "2026-01-02T00:00:00.000Z", "refund triage 🚀"),
  summary("d", "Édition", "2026-01-04T00:00:00.000Z"),
];

describe("searchable", () => {
  it("drops diacritics, đ included, and case", () => {
    expect(searchable("Quy trình Đặt hàng ĐẸP")).toBe("quy trinh dat hang dep");
  });
});

describe("filterAndSort", () => {
  it("finds Vietnamese names typed without diacritics, every word anywhere", () => {
    expect(filterAndSort(items, "dat QUY", "name-asc", "vi").map((item) => item.id)).toEqual(["a"]);
    expect(filterAndSort(items, "xu ly", "name-asc", "vi").map((item) => item.id)).toEqual(["a"]);
  });

  it("searches descriptions and emoji", () => {
    expect(filterAndSort(items, "🚀", "name-asc", "en").map((item) => item.id)).toEqual(["c"]);
  });

  it("keeps everything for an empty or blank query", () => {
    expect(filterAndSort(items, "   ", "updated-desc", "en")).toHaveLength(4);
  });

  it("orders by last saved, newest or oldest first", () => {
    expect(filterAndSort(items, "", "updated-desc", "en").map((item) => item.id)).toEqual(["d", "a", "c", "b"]);
    expect(filterAndSort(items, "", "updated-asc", "en").map((item) => item.id)).toEqual(["b", "c", "a", "d"]);
  });

  it("orders names as people read them: case-blind, numbers by value, accents with their letter", () => {
    expect(filterAndSort(items, "", "name-asc", "en").map((item) => item.name)).toEqual([
      "Alpha 9",
      "alpha 10",
      "Édition",
      "Quy trình Đặt hàng",
    ]);
    expect(filterAndSort(items, "", "name-desc", "en").map((item) => item.id)).toEqual(["a", "d", "b", "c"]);
  });

  it("does not reorder the list it was given", () => {
    const before = items.map((item) => item.id);
    filterAndSort(items, "", "name-asc", "en");
    expect(items.map((item) => item.id)).toEqual(before);
  });
});

describe("parseSort", () => {
  it("falls back to newest first for an unknown value", () => {
    expect(parseSort("name-asc")).toBe("name-asc");
    expect(parseSort("nonsense")).toBe("updated-desc");
    expect(parseSort(null)).toBe("updated-desc");
  });
});
