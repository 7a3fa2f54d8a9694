// The workflow document schema, applied in slices. One zod parse of a 2 MiB document keeps the
// event loop for tens of milliseconds (more before the code is warm), so the large arrays (state,
// nodes, edges) are parsed a slice at a time, with the time slicer in between. The answer is the
// same as `workflowDocument.safeParse`: the same parsed document, the same issues and paths (an
// array over its limit reports only that, as zod does).
import { z } from "zod";
import {
  DOCUMENT_LIMITS,
  stateField,
  type WorkflowDocument,
  workflowDocument,
  workflowEdge,
  workflowNode,
} from "../../schemas/workflow.schema.js";
import type { TimeSlicer } from "./time-slicer.js";

const ARRAYS = [
  { key: "state", element: stateField, limit: DOCUMENT_LIMITS.stateFields },
  { key: "nodes", element: workflowNode, limit: DOCUMENT_LIMITS.nodes },
  { key: "edges", element: workflowEdge, limit: DOCUMENT_LIMITS.edges },
] as const;

/** Elements parsed between two looks at the clock. */
const SLICE = 50;

export type DocumentParse = { success: true; data: WorkflowDocument } | { success: false; issues: z.core.$ZodIssue[] };

export async function parseDocument(raw: unknown, slicer: TimeSlicer): Promise<DocumentParse> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return whole(raw);
  const rest: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const arrays: { key: (typeof ARRAYS)[number]["key"]; items: unknown[]; index: number }[] = [];
  for (const [index, entry] of ARRAYS.entries()) {
    const value = rest[entry.key];
    if (!Array.isArray(value)) continue; // missing (the default applies) or wrong: the whole parse says so
    arrays.push({ key: entry.key, items: value, index });
    rest[entry.key] = [];
  }
  const head = workflowDocument.safeParse(rest);
  const issues: z.core.$ZodIssue[] = head.success ? [] : [...head.error.issues];
  const parsed: Record<string, unknown[]> = {};
  for (const { key, items, index } of arrays) {
    const { element, limit } = ARRAYS[index] as (typeof ARRAYS)[number];
    if (items.length > limit) {
      // Only the size matters then; the elements are not looked at (as with zod's own parse).
      const size = z.array(z.unknown()).max(limit).safeParse(items);
      if (!size.success) for (const issue of size.error.issues) issues.push({ ...issue, path: [key, ...issue.path] });
      continue;
    }
    const out: unknown[] = [];
    for (let i = 0; i < items.length; i++) {
      if (i % SLICE === 0 && slicer.due()) await slicer.pause();
      const one = element.safeParse(items[i]);
      if (one.success) out.push(one.data);
      else for (const issue of one.error.issues) issues.push({ ...issue, path: [key, i, ...issue.path] });
    }
    parsed[key] = out;
  }
  if (issues.length > 0 || !head.success) return { success: false, issues };
  return { success: true, data: { ...head.data, ...parsed } as WorkflowDocument };
}

function whole(raw: unknown): DocumentParse {
  const result = workflowDocument.safeParse(raw);
  return result.success ? { success: true, data: result.data } : { success: false, issues: result.error.issues };
}
