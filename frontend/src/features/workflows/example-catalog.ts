// The example workflows of the repository (examples/*.json), bundled at build time into a chunk
// of their own that loads when the create dialog opens. Their titles and descriptions are
// translated in the locale files (workflows.examples.<file name>).
import type { WorkflowDocument } from "@/lib/api";

const files = import.meta.glob<WorkflowDocument>("../../../../examples/*.json", { eager: true, import: "default" });

// Simplest first; the rest in the order of examples/README.md.
const ORDER = ["hello", "triage", "fan-out-join", "for-each", "http-tool", "subgraph", "send-email", "llm", "decision"];

export interface Example {
  id: string;
  document: WorkflowDocument;
}

export const EXAMPLES: Example[] = Object.entries(files)
  .map(([path, document]) => ({ id: path.replace(/^.*\/([^/]+)\.json$/, "$1"), document }))
  .sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id));

function rank(id: string): number {
  const index = ORDER.indexOf(id);
  return index === -1 ? ORDER.length : index;
}
