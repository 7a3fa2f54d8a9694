// What a validation needs from its surroundings and what it answers.
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import type { NodeDataMap } from "../nodes/node-data.schema.js";
import type { CredentialTypeLookup } from "../runtime/ports.js";
import type { GraphModel } from "./graph-model.js";
import type { Problem } from "./problem-list.js";

export interface ValidationEnvironment {
  codeMode: "wasm" | "off";
  /** Whether a key (or base URL) is configured for each provider, and the variable to set. */
  providers: Record<"openai" | "anthropic", { configured: boolean; variable: string }>;
  /** Whether a node without a credential would use the server's key for this endpoint. */
  serverKeyNeeded(provider: "openai" | "anthropic", baseUrl: string | undefined): boolean;
  smtpConfigured: boolean;
  maxSubgraphDepth: number;
  /** The type of one of the caller's stored credentials, or undefined. */
  credentialType: CredentialTypeLookup;
  /** Loads a saved workflow version the caller may use, or undefined. */
  resolveWorkflow(id: string, version: number): Promise<unknown | undefined>;
}

export type TypedNode = { [K in keyof NodeDataMap]: { id: string; type: K; data: NodeDataMap[K] } }[keyof NodeDataMap];

export interface ValidatedWorkflow {
  document: WorkflowDocument;
  model: GraphModel;
  /** Every node (synthetic start/end included) with its parsed data. */
  nodes: Map<string, TypedNode>;
  /** Subgraph node id → the validated child workflow (shared by nodes that use the same version). */
  subgraphs: Map<string, ValidatedWorkflow>;
  /** For each node id → its body node id. */
  forEachBodies: Map<string, string>;
}

/** How much work a validation call did: deterministic counts, for tests and the benchmark. */
export interface ValidationStats {
  /** Resolver calls: one per distinct (workflow, version). */
  lookups: number;
  /** Child workflows validated: one per distinct (workflow, version, depth). */
  childValidations: number;
  /** Work units of the parallel-write analysis, summed over every validated document. */
  parallelWriteOperations: number;
  /** Times the validation gave the event loop back (depends on the clock). */
  pauses: number;
}

export type ValidationResult = ({ ok: true; workflow: ValidatedWorkflow } | { ok: false; problems: Problem[] }) & {
  /** Set on the answer of a top-level call. */
  stats?: ValidationStats;
};
