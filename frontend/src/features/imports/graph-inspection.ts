// What the graph picker shows of each graph: the check step's inspection (what loaded, or why it
// did not) and whether a workflow can be made from it. Pure, so each state is tested without a browser.
import type { GraphInspectionError, ImportGraph, ImportJob } from "@/lib/api";
import { stepViews } from "./import-job";

export type InspectionView =
  /** The check step has not reached it yet (it waits or runs). */
  | { kind: "checking" }
  /** The check step did not run for it (skipped, stopped, or an older server). */
  | { kind: "unchecked" }
  | {
      kind: "loaded";
      nodes: number;
      edges: number;
      conditionalEdges: number;
      subgraphs: string[];
    }
  | {
      kind: "failed";
      cause: GraphInspectionError["kind"];
      stage: GraphInspectionError["stage"];
      errorType: string | null;
      /** The server's own words (Python's), shown as they are. */
      message: string;
      variables: string[];
      /** file:line, with the function when known, or null. */
      location: string | null;
    };

/** How a graph's inspection is drawn, from the graph and the state of the check step. */
export function inspectionView(graph: ImportGraph, job: Pick<ImportJob, "status" | "steps" | "logs">): InspectionView {
  const inspected = graph.inspected;
  if (inspected === undefined || inspected === null) {
    const check = stepViews(job).find((step) => step.name === "check")?.state;
    return check === "waiting" || check === "running" ? { kind: "checking" } : { kind: "unchecked" };
  }
  if (inspected.ok)
    return {
      kind: "loaded",
      nodes: inspected.nodes,
      edges: inspected.edges,
      conditionalEdges: inspected.conditional_edges,
      subgraphs: inspected.subgraphs,
    };
  const place = inspected.location;
  return {
    kind: "failed",
    cause: inspected.kind,
    stage: inspected.stage,
    errorType: inspected.error_type,
    message: inspected.message,
    variables: inspected.variables,
    location: place ? `${place.file}:${place.line}${place.function ? ` (${place.function})` : ""}` : null,
  };
}

/**
 * The "create workflow" action of a graph: `hidden` for a graph that did not load (or was not
 * checked), `enabled` once the job succeeded, else `waiting` (still running) or `unavailable`
 * (the job failed or was interrupted: the server would answer IMPORT_NOT_READY).
 */
export type CreateAction = "hidden" | "enabled" | "waiting" | "unavailable";

export function createAction(graph: ImportGraph, job: Pick<ImportJob, "status">): CreateAction {
  if (!graph.inspected?.ok) return "hidden";
  if (job.status === "succeeded") return "enabled";
  return job.status === "running" ? "waiting" : "unavailable";
}
