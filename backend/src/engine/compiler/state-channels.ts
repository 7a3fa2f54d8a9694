// State fields become LangGraph channels. `replace` stays LangGraph's LastValue, so two writes in
// one superstep fail loudly instead of one silently winning. A few hidden channels carry routing
// and bookkeeping; their names start with "__", which user fields cannot.
import { Annotation, type StateDefinition } from "@langchain/langgraph";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";

export const ROUTES_CHANNEL = "__routes__";
export const VISITS_CHANNEL = "__visits__";
export const ITEM_KEY = "__item__";
export const INDEX_KEY = "__index__";
const RESET = "__reset__";

export function forEachChannel(nodeId: string): string {
  return `__foreach_${nodeId}__`;
}

export function isHiddenKey(key: string): boolean {
  return key.startsWith("__");
}

/** A write that empties a For each gather channel, so a For each inside a loop starts afresh. */
export function resetMarker(): Record<string, true> {
  return { [RESET]: true };
}

type Field = WorkflowDocument["state"][number];

function append(current: unknown[], update: unknown): unknown[] {
  return current.concat(Array.isArray(update) ? update : [update]);
}

function merge(current: Record<string, unknown>, update: unknown): Record<string, unknown> {
  return update !== null && typeof update === "object" && !Array.isArray(update) ? { ...current, ...update } : current;
}

function add(current: number, update: unknown): number {
  return current + (typeof update === "number" ? update : Number(update));
}

function channel(field: Field) {
  switch (field.reducer ?? "replace") {
    case "append":
      return Annotation<unknown[], unknown>({
        reducer: append,
        default: () => (Array.isArray(field.default) ? structuredClone(field.default) : []),
      });
    case "merge":
      return Annotation<Record<string, unknown>, unknown>({
        reducer: merge,
        default: () =>
          field.default !== null && typeof field.default === "object"
            ? structuredClone(field.default as Record<string, unknown>)
            : {},
      });
    case "add":
      return Annotation<number, unknown>({
        reducer: add,
        default: () => (typeof field.default === "number" ? field.default : 0),
      });
    default:
      return Annotation<unknown>();
  }
}

export function stateDefinition(document: WorkflowDocument, forEachIds: string[]): StateDefinition {
  const definition: StateDefinition = {};
  for (const field of document.state) definition[field.name] = channel(field);
  definition[ROUTES_CHANNEL] = Annotation<Record<string, string>, Record<string, string>>({
    reducer: (a, b) => ({ ...a, ...b }),
    default: () => ({}),
  });
  definition[VISITS_CHANNEL] = Annotation<Record<string, number>, Record<string, number>>({
    reducer: (a, b) => ({ ...a, ...b }),
    default: () => ({}),
  });
  for (const id of forEachIds) {
    definition[forEachChannel(id)] = Annotation<unknown[], unknown>({
      reducer: (current, update) =>
        update !== null && typeof update === "object" && RESET in update ? [] : append(current, update),
      default: () => [],
    });
  }
  return definition;
}

/** Replace fields keep their default through the run input (LastValue channels have none). */
export function replaceDefaults(document: WorkflowDocument): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const field of document.state) {
    if ((field.reducer ?? "replace") === "replace" && field.default !== undefined) {
      defaults[field.name] = structuredClone(field.default);
    }
  }
  return defaults;
}

/** The user-visible part of a state. */
export function visibleState(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (!isHiddenKey(key)) out[key] = value;
  return out;
}
