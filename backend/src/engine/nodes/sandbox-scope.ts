// Which sandbox calls may share a Python interpreter: those of one run's turn within one workflow
// (a Subgraph's workflow has a scope of its own). A workflow with several Python steps, or a For
// each over a Python Code node, then starts one child (a few per For each) instead of one per call;
// each call still runs in a fresh namespace, and no two runs ever share a child. The turn's end
// kills what its scopes kept (runtime.ts, one-node.ts).
import type { RunContext } from "../runtime/run-context.js";

/** Runs whose calls named a scope: only their turns' ends load the sandbox to end them. */
const scopedRuns = new Set<string>();

/** The scope of a call made by a node of this run context. */
export function sandboxScopeOf(ctx: RunContext): string {
  scopedRuns.add(ctx.runId);
  return `${scopePrefix(ctx.runId)}${ctx.keyPrefix}`;
}

/** A run's turn is over: the children its calls kept are killed (once the sandbox module is at hand). */
export function endRunSandboxScopes(runId: string): void {
  if (!scopedRuns.delete(runId)) return;
  // Loaded already: the run's calls loaded it.
  void import("../sandbox/sandbox-pool.js").then(({ endSandboxScopes }) => endSandboxScopes(scopePrefix(runId)));
}

const scopePrefix = (runId: string) => `${runId}\n`;
