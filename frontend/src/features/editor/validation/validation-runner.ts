// Asks the backend validator about the document after a pause in editing. Answers can arrive out
// of order on a slow network; only the answer to the latest document counts (older ones are dropped).
import { ApiError } from "@/lib/api";

/** A problem as the backend validator reports it (inside WORKFLOW_INVALID's details). */
export interface ValidatorProblem {
  code: string;
  message: string;
  node_id?: string;
  edge_id?: string;
  path?: string;
}

export type ValidationResult =
  | { status: "valid" }
  | { status: "invalid"; problems: ValidatorProblem[] }
  | { status: "failed"; code: string };

/** How long edits must pause before the document is checked. */
export const VALIDATION_DELAY_MS = 600;

export interface ValidationRunner {
  /** The document changed: check it after the pause (a newer one replaces a waiting one). */
  schedule(document: unknown): void;
  /** Checks the last scheduled document now (retry after a network error). */
  now(): void;
  dispose(): void;
}

function problemsOf(details: unknown): ValidatorProblem[] | null {
  if (!Array.isArray(details)) return null;
  return details.filter(
    (p): p is ValidatorProblem =>
      typeof p === "object" && p !== null && typeof p.code === "string" && typeof p.message === "string",
  );
}

/** The answer of one validate call, whatever it was (a 422 is an answer, not a failure). */
export async function validationResult(call: () => Promise<unknown>): Promise<ValidationResult> {
  try {
    await call();
    return { status: "valid" };
  } catch (error) {
    if (error instanceof ApiError && error.code === "WORKFLOW_INVALID") {
      const problems = problemsOf(error.details);
      if (problems) return { status: "invalid", problems };
    }
    return { status: "failed", code: error instanceof ApiError ? error.code : "NETWORK" };
  }
}

export function createValidationRunner(options: {
  validate(document: unknown): Promise<unknown>;
  onChecking(): void;
  onResult(result: ValidationResult): void;
  delayMs?: number;
}): ValidationRunner {
  const delay = options.delayMs ?? VALIDATION_DELAY_MS;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let latest = 0;
  let last: { document: unknown } | null = null;
  let disposed = false;

  const run = async () => {
    timer = null;
    if (!last || disposed) return;
    const serial = ++latest;
    const { document } = last;
    options.onChecking();
    const result = await validationResult(() => options.validate(document));
    if (serial === latest && !disposed) options.onResult(result);
  };

  return {
    schedule(document) {
      last = { document };
      if (timer !== null) clearTimeout(timer);
      // A newer document is on its way: any answer still in flight is already out of date.
      latest++;
      timer = setTimeout(run, delay);
    },
    now() {
      if (timer !== null) clearTimeout(timer);
      void run();
    },
    dispose() {
      disposed = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
