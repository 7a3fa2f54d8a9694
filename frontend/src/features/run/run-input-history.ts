// The last inputs a workflow was run with, newest first, kept in the browser (like LangGraph
// Studio's previous inputs): the run panel offers them again.
const LIMIT = 10;
const keyOf = (workflowId: string) => `superstep.run-inputs.${workflowId}`;

function storage(): Storage | null {
  return typeof localStorage === "undefined" ? null : localStorage;
}

export function readInputHistory(workflowId: string): Record<string, unknown>[] {
  try {
    const value = JSON.parse(storage()?.getItem(keyOf(workflowId)) ?? "[]") as unknown;
    return Array.isArray(value)
      ? value.filter((v): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v))
      : [];
  } catch {
    return [];
  }
}

/** Puts an input first (once: an equal earlier entry moves up); the list keeps the last ten. */
export function rememberInput(workflowId: string, input: Record<string, unknown>): Record<string, unknown>[] {
  const text = JSON.stringify(input);
  const next = [input, ...readInputHistory(workflowId).filter((v) => JSON.stringify(v) !== text)].slice(0, LIMIT);
  try {
    storage()?.setItem(keyOf(workflowId), JSON.stringify(next));
  } catch {
    // A full storage only loses the history, never the run.
  }
  return next;
}
