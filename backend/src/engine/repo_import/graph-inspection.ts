// The check step's command and how its answer is read: `runner.py inspect` over every discovered
// graph, one JSON line back per graph (docs/en/import-runner.md). The lines come from a process
// that ran the repository's code, so they are parsed, not trusted; each becomes the job graph's
// `inspected` summary, while the full `graph` line is kept for building the workflow.
import { z } from "zod";
import type { GraphInspection as InspectionView } from "../../schemas/import.schema.js";
import type { SandboxPaths } from "../sandbox/import-sandbox.js";
import { venvPython } from "./install-plan.js";

const location = z.object({ file: z.string(), line: z.number().int(), function: z.string().nullable().default(null) });

/** A graph's check result (the job's `inspected`), once checked. */
export type GraphInspection = NonNullable<InspectionView>;

export const runnerGraphLine = z.object({
  type: z.literal("graph"),
  id: z.string(),
  name: z.string().nullable().default(null),
  nodes: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string().nullable().default(null),
        start: z.boolean().default(false),
        end: z.boolean().default(false),
        subgraph: z.string().nullable().default(null),
        source: z
          .object({ file: z.string(), line: z.number().int().min(1) })
          .nullable()
          .default(null),
        metadata: z.unknown().optional(),
      }),
    )
    .max(2000),
  edges: z
    .array(
      z.object({
        source: z.string(),
        target: z.string(),
        conditional: z.boolean().default(false),
        label: z.string().nullable().default(null),
      }),
    )
    .max(5000),
  subgraphs: z.array(z.object({ id: z.string(), nodes: z.array(z.string()) })).default([]),
  context_schema: z.unknown().nullable().default(null),
});
export type RunnerGraphLine = z.infer<typeof runnerGraphLine>;

const runnerGraphError = z.object({
  type: z.literal("graph_error"),
  id: z.string(),
  kind: z.enum(["missing_env", "network", "exception"]).catch("exception"),
  stage: z.enum(["import", "build", "inspect"]).nullable().catch(null),
  error_type: z.string().nullable().catch(null),
  message: z.string().catch("the graph could not be loaded"),
  variables: z.array(z.string()).catch([]),
  location: location.nullable().catch(null),
});

/** A graph id the runner can take: `id=spec` splits at the first `=`. */
export function inspectableId(id: string): boolean {
  return !id.includes("=");
}

/** `runner.py inspect` for the graphs, with paths as the sandbox sees them. */
export function inspectCommand(paths: SandboxPaths, root: string, graphs: { id: string; spec: string }[]): string[] {
  return [
    venvPython(paths),
    paths.runner,
    "inspect",
    "--root",
    root,
    ...graphs.flatMap((graph) => ["--graph", `${graph.id}=${graph.spec}`]),
  ];
}

export type InspectLine =
  | { kind: "graph"; id: string; line: RunnerGraphLine; raw: unknown }
  | { kind: "error"; id: string; inspected: GraphInspection; raw: unknown };

/** One stdout line of the runner, or null when it is not a graph's line (or not JSON). */
export function readInspectLine(text: string): InspectLine | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const graph = runnerGraphLine.safeParse(raw);
  if (graph.success) return { kind: "graph", id: graph.data.id, line: graph.data, raw };
  const error = runnerGraphError.safeParse(raw);
  if (!error.success) return null;
  const { kind, stage, error_type, message, variables, location: where } = error.data;
  return {
    kind: "error",
    id: error.data.id,
    inspected: { ok: false, kind, stage, error_type, message, variables, location: where },
    raw,
  };
}

/** The job graph's summary of a loaded graph. */
export function loadedSummary(graphId: string, line: RunnerGraphLine): GraphInspection {
  return {
    ok: true,
    name: line.name ?? graphId,
    nodes: line.nodes.length,
    edges: line.edges.length,
    conditional_edges: line.edges.filter((edge) => edge.conditional).length,
    subgraphs: line.subgraphs.map((subgraph) => subgraph.id),
    context_schema: line.context_schema ?? null,
  };
}

/** A graph the runner gave no line for: the time limit ended it, or the runner itself failed. */
export function notInspected(kind: "timeout" | "exception", message: string): GraphInspection {
  return { ok: false, kind, stage: null, error_type: null, message, variables: [], location: null };
}
