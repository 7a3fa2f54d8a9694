// Where a zod issue points, as a dotted path into the document (`nodes.3.data.url`).
import type { z } from "zod";

export function zodPath(prefix: string, issue: z.core.$ZodIssue): string {
  return [prefix, ...issue.path.map(String)].filter((s) => s !== "").join(".");
}
