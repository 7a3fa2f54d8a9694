// How a job is shown: each step's state as the list draws it, whether to keep polling, and the
// line that names the source. Pure functions, so the page's logic is tested without a browser.
import type { ImportJob, ImportStepName, ImportStepStatus } from "@/lib/api";

export const STEP_ORDER: readonly ImportStepName[] = ["download", "install", "check", "ready"];

/** What a step looks like: `waiting` (pending while the job runs), `stopped` (pending after it ended). */
export type StepState = "waiting" | "running" | "done" | "failed" | "skipped" | "stopped";

export interface StepView {
  name: ImportStepName;
  state: StepState;
  /** Its log lines, in order. */
  logs: string[];
}

/** Is the job still moving (poll it) or over (stop polling)? */
export function isJobActive(job: Pick<ImportJob, "status"> | undefined): boolean {
  return job?.status === "running";
}

/** How often to ask again for a job: every second while it runs, never once it has ended. */
export function jobRefetchInterval(job: Pick<ImportJob, "status"> | undefined, everyMs = 1000): number | false {
  return job === undefined || isJobActive(job) ? everyMs : false;
}

function stateOf(status: ImportStepStatus | undefined, jobActive: boolean): StepState {
  if (status === undefined || status === "pending") return jobActive ? "waiting" : "stopped";
  return status;
}

/** The four steps in order with their states and log lines, whatever order the job lists them in. */
export function stepViews(job: Pick<ImportJob, "status" | "steps" | "logs">): StepView[] {
  const active = isJobActive(job);
  return STEP_ORDER.map((name) => ({
    name,
    state: stateOf(job.steps.find((step) => step.name === name)?.status, active),
    logs: job.logs.filter((log) => log.step === name).map((log) => log.line),
  }));
}

/** The source as one short line: owner/repo (branch, sub-directory) or the zip's file name. */
export function sourceLabel(source: ImportJob["source"]): string {
  if (source.kind === "zip") return source.file_name;
  const name = source.url.replace(/^https:\/\/github\.com\//, "").replace(/\.git$/, "");
  const extras = [source.branch, source.subdir].filter((part): part is string => Boolean(part));
  return extras.length > 0 ? `${name} (${extras.join(", ")})` : name;
}

/** Where a graph lives, as file:variable (module:variable for a dotted module path). */
export function graphLocation(graph: ImportJob["graphs"][number]): string {
  return `${graph.file ?? graph.module ?? "?"}:${graph.variable}`;
}
