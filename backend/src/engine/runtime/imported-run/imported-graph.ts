// Whether a workflow document is made from an imported repository (decision 0028). Light on
// purpose: services ask it without loading the imported-run engine.
import type { ImportedGraph } from "../../../schemas/workflow.schema.js";

/** The document's `imported`, or null for an ordinary workflow. */
export function importedGraphOf(document: unknown): ImportedGraph | null {
  if (!document || typeof document !== "object") return null;
  const imported = (document as { imported?: unknown }).imported;
  return imported && typeof imported === "object" ? (imported as ImportedGraph) : null;
}
