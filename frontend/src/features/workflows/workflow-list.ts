// Search and order of the workflows list, done in the browser: the list holds a person's own
// workflows, which the API returns in full (page after page).
import type { WorkflowSummary } from "@/lib/api";

export const SORTS = ["updated-desc", "updated-asc", "name-asc", "name-desc"] as const;
export type Sort = (typeof SORTS)[number];
export const DEFAULT_SORT: Sort = "updated-desc";

export function parseSort(value: string | null): Sort {
  return SORTS.includes(value as Sort) ? (value as Sort) : DEFAULT_SORT;
}

/** Lower case without diacritics: "Quy trình Đặt hàng" is found by "quy trinh dat hang". */
export function searchable(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{Mn}/gu, "")
    .replace(/đ/g, "d")
    .replace(/Đ/g, "D")
    .toLocaleLowerCase();
}

export function filterAndSort(items: readonly WorkflowSummary[], query: string, sort: Sort, locale: string) {
  const words = searchable(query).split(/\s+/).filter(Boolean);
  const matches = words.length
    ? items.filter((item) => {
        const text = searchable(`${item.name} ${item.description ?? ""}`);
        return words.every((word) => text.includes(word));
      })
    : [...items];
  const collator = new Intl.Collator(locale, { sensitivity: "base", numeric: true });
  const byName = (a: WorkflowSummary, b: WorkflowSummary) =>
    collator.compare(a.name, b.name) || a.id.localeCompare(b.id);
  const byUpdated = (a: WorkflowSummary, b: WorkflowSummary) =>
    a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id);
  const compare = {
    "updated-desc": (a: WorkflowSummary, b: WorkflowSummary) => byUpdated(b, a),
    "updated-asc": byUpdated,
    "name-asc": byName,
    "name-desc": (a: WorkflowSummary, b: WorkflowSummary) => byName(b, a),
  }[sort];
  return matches.sort(compare);
}
