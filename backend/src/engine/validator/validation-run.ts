// One validation call and everything it shares between nested workflows: the time slicer, and
// the saved workflows it looked up and validated. A child workflow used by many Subgraph nodes is
// fetched once per (workflow, version) and validated once per nesting depth, instead of once per
// node, level after level (which grows exponentially with depth).
import { MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION } from "../providers/answer-schema.js";
import { TimeSlicer } from "./time-slicer.js";
import type { ValidationEnvironment, ValidationResult, ValidationStats } from "./validation-types.js";

/** Distinct child validations (workflow, version, depth) one validation call performs at most. */
export const MAX_SUBGRAPH_VALIDATIONS = 100;

/** A validated document, with what its parents need to check cycles and to list its problems. */
export interface DocumentOutcome {
  result: ValidationResult;
  /** Every workflow id its Subgraph nodes name, at any depth that was explored. */
  contains: ReadonlySet<string>;
  /** Problems found, including those left out of `result.problems`. */
  total: number;
}

export type ChildLookup =
  | { kind: "found"; outcome: DocumentOutcome }
  | { kind: "not_found" }
  | { kind: "limit_reached" };

export type ValidateDocument = (
  raw: unknown,
  run: ValidationRun,
  lineage: { depth: number; chain: readonly string[] },
) => Promise<DocumentOutcome>;

export class ValidationRun {
  readonly env: ValidationEnvironment;
  readonly slicer = new TimeSlicer();
  parallelWriteOperations = 0;
  /** Objects and arrays of structured-answer schemas this call may still compile (see node-checks). */
  answerSchemaBudget: number = MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION;
  readonly #validate: ValidateDocument;
  readonly #documents = new Map<string, Promise<unknown>>();
  readonly #children = new Map<string, Promise<ChildLookup>>();
  #childValidations = 0;

  constructor(env: ValidationEnvironment, validate: ValidateDocument) {
    this.env = env;
    this.#validate = validate;
  }

  get stats(): ValidationStats {
    return {
      lookups: this.#documents.size,
      childValidations: this.#childValidations,
      parallelWriteOperations: this.parallelWriteOperations,
      pauses: this.slicer.pauses,
    };
  }

  /** The saved document, looked up once per (workflow, version). */
  document(id: string, version: number): Promise<unknown> {
    const key = JSON.stringify([id, version]);
    let found = this.#documents.get(key);
    if (!found) {
      found = this.env.resolveWorkflow(id, version);
      this.#documents.set(key, found);
    }
    return found;
  }

  /** The child workflow validated at `depth`, once per (workflow, version, depth). */
  child(id: string, version: number, depth: number): Promise<ChildLookup> {
    const key = JSON.stringify([id, version, depth]);
    let lookup = this.#children.get(key);
    if (!lookup) {
      lookup = (async (): Promise<ChildLookup> => {
        const raw = await this.document(id, version);
        if (raw === undefined) return { kind: "not_found" };
        if (this.#childValidations >= MAX_SUBGRAPH_VALIDATIONS) return { kind: "limit_reached" };
        this.#childValidations++;
        return { kind: "found", outcome: await this.#validate(raw, this, { depth, chain: [id] }) };
      })();
      this.#children.set(key, lookup);
    }
    return lookup;
  }
}
