// The validator's latest answer for one open editor, shared by the Problems tab's badge and the
// Problems panel (the panel mounts only while its tab is open; the check runs all the time).
import { createStore, type StoreApi } from "zustand/vanilla";
import type { DocumentStore } from "../document";
import type { ValidationResult } from "./validation-runner";

export interface ValidationState {
  /** null: not checked yet. */
  result: ValidationResult | null;
  /** A check is on its way (the result shown is for an earlier document). */
  checking: boolean;
  /** Set by the runner: checks the current document now. */
  retry: () => void;
}

export type ValidationStore = StoreApi<ValidationState>;

const stores = new WeakMap<DocumentStore, ValidationStore>();

export function validationStoreFor(document: DocumentStore): ValidationStore {
  let store = stores.get(document);
  if (!store) {
    store = createStore<ValidationState>()(() => ({ result: null, checking: false, retry: () => {} }));
    stores.set(document, store);
  }
  return store;
}

/** Problems that stop a run (the "more were found" marker is not one of them). */
export function problemCount(result: ValidationResult | null): number {
  if (result?.status !== "invalid") return 0;
  return result.problems.filter((p) => p.code !== "PROBLEMS_TRUNCATED").length;
}
