// A line diff of two documents' JSON text (the `diff` package), with long unchanged stretches
// folded so the changes stay in view.
import { diffLines } from "diff";

export type DiffLine =
  | { kind: "added" | "removed" | "same"; text: string; oldLine?: number; newLine?: number }
  | { kind: "folded"; count: number };

/** Unchanged lines kept around each change. */
export const DIFF_CONTEXT = 3;

export function jsonDiff(before: string, after: string, context = DIFF_CONTEXT): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  const parts = diffLines(before, after);
  parts.forEach((part, index) => {
    const texts = part.value.replace(/\n$/, "").split("\n");
    if (part.added) {
      for (const text of texts) lines.push({ kind: "added", text, newLine: newLine++ });
      return;
    }
    if (part.removed) {
      for (const text of texts) lines.push({ kind: "removed", text, oldLine: oldLine++ });
      return;
    }
    // Unchanged: keep `context` lines next to a change, fold the middle.
    const keepStart = index === 0 ? 0 : context;
    const keepEnd = index === parts.length - 1 ? 0 : context;
    const same = (text: string) => ({ kind: "same" as const, text, oldLine: oldLine++, newLine: newLine++ });
    if (texts.length <= keepStart + keepEnd + 1) {
      for (const text of texts) lines.push(same(text));
      return;
    }
    for (const text of texts.slice(0, keepStart)) lines.push(same(text));
    const folded = texts.length - keepStart - keepEnd;
    lines.push({ kind: "folded", count: folded });
    oldLine += folded;
    newLine += folded;
    for (const text of texts.slice(texts.length - keepEnd)) lines.push(same(text));
  });
  return lines;
}
