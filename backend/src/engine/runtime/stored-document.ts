// A workflow document as it is stored (JSON text). Validating one is remembered by its text when
// the result depends on nothing but the text and the engine settings (no Subgraph node resolved
// another workflow, no credential was looked up): every run of a saved workflow then validates it
// once, the trigger and the worker share that validation, and the compiled graph (cached by the
// validated workflow) is found without hashing the document again. Validated workflows are never
// changed once built, so one may serve any number of runs.
import type { EngineConfig } from "../../core/config.js";
import type { ValidatedWorkflow } from "../validator/validator.js";

// Bounds: the distinct documents remembered per engine settings, and the longest text remembered
// (a larger one is validated on every use, as before).
const REMEMBERED_LIMIT = 200;
const REMEMBERED_TEXT_LIMIT = 1024 * 1024;

export class StoredDocument {
  readonly text: string;
  #parsed: { value: unknown } | null = null;

  constructor(text: string) {
    this.text = text;
  }

  /** The document (parsed once). */
  parsed(): unknown {
    this.#parsed ??= { value: JSON.parse(this.text) as unknown };
    return this.#parsed.value;
  }
}

// Per engine settings object (the process's, normally one): text → validated workflow.
const remembered = new WeakMap<EngineConfig, Map<string, ValidatedWorkflow>>();

export function rememberedValidation(engine: EngineConfig, stored: StoredDocument): ValidatedWorkflow | undefined {
  const byText = remembered.get(engine);
  const workflow = byText?.get(stored.text);
  if (workflow && byText) {
    // Most recently used last, so the oldest is forgotten first.
    byText.delete(stored.text);
    byText.set(stored.text, workflow);
  }
  return workflow;
}

export function rememberValidation(engine: EngineConfig, stored: StoredDocument, workflow: ValidatedWorkflow): void {
  if (stored.text.length > REMEMBERED_TEXT_LIMIT) return;
  let byText = remembered.get(engine);
  if (!byText) {
    byText = new Map();
    remembered.set(engine, byText);
  }
  if (byText.size >= REMEMBERED_LIMIT) byText.delete(byText.keys().next().value as string);
  byText.set(stored.text, workflow);
}
