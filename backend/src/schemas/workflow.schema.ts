// The workflow document: the single source of truth the editor writes and the engine compiles.
// This is its shape; the engine's validator checks the graph rules on top of it.
import { z } from "zod";

export const NODE_TYPES = [
  "start",
  "end",
  "llm",
  "tool",
  "code",
  "condition",
  "decision",
  "for_each",
  "join",
  "human",
  "send_email",
  "subgraph",
] as const;
export const STATE_TYPES = ["string", "number", "boolean", "object", "list", "any"] as const;
export const REDUCERS = ["replace", "append", "merge", "add"] as const;

export const DOCUMENT_LIMITS = { nodes: 2000, edges: 5000, stateFields: 200, dataDepth: 64 } as const;

/** Nesting depth of arrays/objects, measured without recursion so hostile input cannot blow the stack. */
export function nestingDepth(value: unknown, stopAt = DOCUMENT_LIMITS.dataDepth + 1): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    max = Math.max(max, depth + 1);
    if (max >= stopAt) return max;
    for (const member of Object.values(current)) stack.push([member, depth + 1]);
  }
  return max;
}

const boundedJson = z.unknown().refine((value) => nestingDepth(value) <= DOCUMENT_LIMITS.dataDepth, {
  message: `is nested deeper than ${DOCUMENT_LIMITS.dataDepth} levels`,
});

// LangGraph forbids `|` and `:` in node names; ids also end up in URLs and logs.
const elementId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: "must be 1-64 letters, digits, '_' or '-'" });

const stateFieldName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: "must be an identifier (letters, digits, '_')" })
  // Names every object already has (toString, valueOf, hasOwnProperty, …) would collide with
  // them in the graph's channel table.
  .refine((name) => !name.startsWith("__") && name !== "prototype" && !(name in Object.prototype), {
    message: "is reserved",
  });

export const stateField = z.strictObject({
  name: stateFieldName,
  type: z.enum(STATE_TYPES),
  reducer: z.enum(REDUCERS).optional(),
  default: boundedJson.optional(),
  description: z.string().max(1000).optional(),
});

export const workflowNode = z.strictObject({
  id: elementId,
  type: z.enum(NODE_TYPES),
  position: z.strictObject({ x: z.number(), y: z.number() }),
  data: z
    .record(z.string(), z.unknown())
    .refine((value) => nestingDepth(value) <= DOCUMENT_LIMITS.dataDepth, {
      message: `is nested deeper than ${DOCUMENT_LIMITS.dataDepth} levels`,
    })
    .default({}),
});

export const workflowEdge = z.strictObject({
  id: elementId,
  source: elementId,
  target: elementId,
  label: z.string().min(1).max(100).optional(),
  /** An imported graph's conditional edge (its routing function chooses it); shown dashed, read-only. */
  conditional: z.boolean().optional(),
});

/**
 * A workflow made from a graph of an imported repository (decision 0028): it runs the original
 * Python code in the import sandbox, and the editor shows it read-only.
 */
export const importedGraph = z.strictObject({
  job_id: z.string().min(1).max(64),
  graph_id: z.string().min(1).max(200),
  /** The graph's spec as the runner takes it: `./path.py:var` or `pkg.mod:var`. */
  spec: z.string().min(1).max(1000),
  /** Environment names the repository declares (.env.example and its kin). */
  env_names: z.array(z.string().max(200)).max(500).default([]),
  /** The JSON schema of the graph's runtime context (`__context__` in the input), or null. */
  context_schema: boundedJson.nullable().default(null),
});
export type ImportedGraph = z.infer<typeof importedGraph>;

export const workflowDocument = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).optional(),
  state: z.array(stateField).max(DOCUMENT_LIMITS.stateFields).default([]),
  nodes: z.array(workflowNode).max(DOCUMENT_LIMITS.nodes).default([]),
  edges: z.array(workflowEdge).max(DOCUMENT_LIMITS.edges).default([]),
  imported: importedGraph.optional(),
});
export type WorkflowDocument = z.infer<typeof workflowDocument>;

export const workflowSummaryView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  version: z.number().int(),
  content_hash: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WorkflowSummaryView = z.infer<typeof workflowSummaryView>;

export const workflowView = workflowSummaryView.extend({ document: workflowDocument });
export type WorkflowView = z.infer<typeof workflowView>;

export const versionSummaryView = z.object({
  number: z.number().int(),
  content_hash: z.string(),
  author_id: z.string(),
  /** The author's name and email as their account has them now (null: no name, or the account is gone). */
  author_name: z.string().nullable(),
  author_email: z.string().nullable(),
  created_at: z.string(),
  /** The version a restore copied, or null for an ordinary save. */
  restored_from: z.number().int().nullable(),
});
export type VersionSummaryView = z.infer<typeof versionSummaryView>;

export const versionView = versionSummaryView.extend({ document: workflowDocument });
export type VersionView = z.infer<typeof versionView>;

export const versionParams = z.strictObject({
  id: z.string().min(1).max(100),
  n: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});
