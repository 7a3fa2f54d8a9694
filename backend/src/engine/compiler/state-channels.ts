// State fields become LangGraph channels. `replace` stays LangGraph's LastValue, so two writes in
// one superstep fail loudly instead of one silently winning. A few hidden channels carry routing
// and bookkeeping; their names start with "__", which user fields cannot.
import { Annotation, BinaryOperatorAggregate, type StateDefinition } from "@langchain/langgraph";
import { isDeltaSnapshot } from "@langchain/langgraph-checkpoint";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";

export const ROUTES_CHANNEL = "__routes__";
export const VISITS_CHANNEL = "__visits__";
/** Join and For each id → whether it has work pending (see join-plan.ts). */
export const PENDING_CHANNEL = "__pending__";
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

/**
 * A reducer channel that reads every write as data. LangGraph's own reducer channel takes a
 * written `{"__overwrite__": v}` (or `{"type": "__overwrite__", "value": v}`) as a command to
 * replace the value; node outputs come from HTTP responses and models, so here every write goes
 * through the reducer, whatever its shape.
 */
class DataReducerChannel<V> extends BinaryOperatorAggregate<V, unknown> {
  override update(values: unknown[]): boolean {
    if (values.length === 0) return false;
    for (const incoming of values) {
      this.value = this.value === undefined ? (incoming as V) : this.operator(this.value, incoming);
    }
    return true;
  }

  override fromCheckpoint(checkpoint?: unknown): this {
    const restored = new DataReducerChannel<V>(this.operator, this.initialValueFactory);
    if (checkpoint !== undefined) restored.value = (isDeltaSnapshot(checkpoint) ? checkpoint.value : checkpoint) as V;
    return restored as this;
  }
}

function reducerChannel<V>(operator: (current: V, update: unknown) => V, initial: () => V): DataReducerChannel<V> {
  return new DataReducerChannel<V>(operator, initial);
}

function append(current: unknown[], update: unknown): unknown[] {
  return current.concat(Array.isArray(update) ? update : [update]);
}

function merge(current: Record<string, unknown>, update: unknown): Record<string, unknown> {
  return update !== null && typeof update === "object" && !Array.isArray(update) ? { ...current, ...update } : current;
}

function add(current: number, update: unknown): number {
  return current + (typeof update === "number" ? update : Number(update));
}

/** What a reducer field holds before any write: its default, or the reducer's empty value. */
function initialOf(field: Field): unknown {
  switch (field.reducer ?? "replace") {
    case "append":
      return Array.isArray(field.default) ? structuredClone(field.default) : [];
    case "merge":
      return field.default !== null && typeof field.default === "object"
        ? structuredClone(field.default as Record<string, unknown>)
        : {};
    case "add":
      return typeof field.default === "number" ? field.default : 0;
    default:
      return field.default === undefined ? undefined : structuredClone(field.default);
  }
}

function channel(field: Field) {
  switch (field.reducer ?? "replace") {
    case "append":
      return reducerChannel<unknown[]>(append, () => initialOf(field) as unknown[]);
    case "merge":
      return reducerChannel<Record<string, unknown>>(merge, () => initialOf(field) as Record<string, unknown>);
    case "add":
      return reducerChannel<number>(add, () => initialOf(field) as number);
    default:
      return Annotation<unknown>();
  }
}

/**
 * A state as a run starts it: each field's default (or its reducer's empty value), then `values`.
 * Fields without a value or default are absent, as in a run.
 */
export function stateWithDefaults(
  document: WorkflowDocument,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const field of document.state) {
    const value = Object.hasOwn(values, field.name) ? values[field.name] : initialOf(field);
    if (value !== undefined) state[field.name] = value;
  }
  return state;
}

/**
 * The visible state after one node's update, applied through each field's reducer as the run's
 * channels apply it (replace, append, merge, add). Hidden and undeclared keys are left out.
 */
export function applyUpdate(
  document: WorkflowDocument,
  state: Record<string, unknown>,
  update: Record<string, unknown>,
): Record<string, unknown> {
  const next = structuredClone(state);
  for (const field of document.state) {
    if (!Object.hasOwn(update, field.name)) continue;
    const value = structuredClone(update[field.name]);
    const current = Object.hasOwn(next, field.name) ? next[field.name] : initialOf(field);
    switch (field.reducer ?? "replace") {
      case "append":
        next[field.name] = append(current as unknown[], value);
        break;
      case "merge":
        next[field.name] = merge(current as Record<string, unknown>, value);
        break;
      case "add":
        next[field.name] = add(current as number, value);
        break;
      default:
        next[field.name] = value;
    }
  }
  return next;
}

export function stateDefinition(document: WorkflowDocument, forEachIds: string[]): StateDefinition {
  const definition: StateDefinition = {};
  for (const field of document.state) definition[field.name] = channel(field);
  definition[ROUTES_CHANNEL] = reducerChannel<Record<string, string>>(
    (a, b) => ({ ...a, ...(b as object) }),
    () => ({}),
  );
  definition[VISITS_CHANNEL] = reducerChannel<Record<string, number>>(
    (a, b) => ({ ...a, ...(b as object) }),
    () => ({}),
  );
  definition[PENDING_CHANNEL] = reducerChannel<Record<string, boolean>>(
    (a, b) => ({ ...a, ...(b as object) }),
    () => ({}),
  );
  for (const id of forEachIds) {
    definition[forEachChannel(id)] = reducerChannel<unknown[]>(
      (current, update) =>
        update !== null && typeof update === "object" && !Array.isArray(update) && RESET in update
          ? []
          : append(current, update),
      () => [],
    );
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
