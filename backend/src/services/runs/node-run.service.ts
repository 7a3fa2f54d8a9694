// Run one node: a single node of a saved workflow or of the editor's unsaved document, on a state
// taken from a superstep of a past run and/or typed as JSON, without running anything upstream.
// The node executes for real (its LLM call, HTTP request or email happen); nothing is written to
// the database, and the past run the state came from is only read (decision 0020).
import type { Actor } from "../../core/authz.js";
import type { EngineConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import type { OneNodeResult } from "../../engine/runtime/one-node.js";
import { nodeToRunAlone } from "../../engine/runtime/one-node-target.js";
import type { CredentialResolver } from "../../engine/runtime/ports.js";
import { prepareWorkflow } from "../../engine/runtime/prepare-workflow.js";
import { StoredDocument } from "../../engine/runtime/stored-document.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { RunHistoryRepository } from "../../repositories/run-history.repository.js";
import type { WorkflowRepository } from "../../repositories/workflow.repository.js";
import type { NodeRunRequest } from "../../schemas/node-run.schema.js";
import type { WorkflowDocument } from "../../schemas/workflow.schema.js";
import type { WorkflowService } from "../workflow.service.js";
import { checkForkState } from "./fork-state.js";

export class NodeRunService {
  readonly #runs: RunRepository;
  readonly #history: RunHistoryRepository;
  readonly #workflows: WorkflowRepository;
  readonly #workflowService: WorkflowService;
  readonly #engine: EngineConfig;
  readonly #credentialsFor: (ownerId: string) => CredentialResolver;

  constructor(deps: {
    runs: RunRepository;
    history: RunHistoryRepository;
    workflows: WorkflowRepository;
    workflowService: WorkflowService;
    engine: EngineConfig;
    credentialsFor(ownerId: string): CredentialResolver;
  }) {
    this.#runs = deps.runs;
    this.#history = deps.history;
    this.#workflows = deps.workflows;
    this.#workflowService = deps.workflowService;
    this.#engine = deps.engine;
    this.#credentialsFor = deps.credentialsFor;
  }

  /**
   * Executes the node once and answers with its output, the state it would write and its
   * duration; a failure of the node is the answer's `error`. Refused before anything runs:
   * WORKFLOW_NOT_FOUND, VERSION_NOT_FOUND, WORKFLOW_INVALID, NODE_NOT_FOUND, NODE_RUN_UNSUPPORTED,
   * RUN_NOT_FOUND, RUN_CHECKPOINT_NOT_FOUND, FORK_STATE_INVALID.
   */
  async run(actor: Actor, request: NodeRunRequest): Promise<OneNodeResult> {
    const { document, workflowId } = await this.#documentOf(actor, request);
    const workflow = await prepareWorkflow(document, {
      engine: this.#engine,
      resolveWorkflow: this.#workflowService.resolverFor(actor),
      credentialType: this.#workflowService.credentialTypesFor(actor),
      workflowId,
    });
    nodeToRunAlone(workflow, request.node_id, request.iteration !== undefined);
    const past = request.from ? await this.#pastState(actor, request.from, workflow.document) : {};
    const state = checkForkState(workflow.document, { ...past, ...(request.state ?? {}) });
    // The engine (LangGraph, the providers) loads with the first one-node run, not at start.
    const { runOneNode } = await import("../../engine/runtime/one-node.js");
    return runOneNode(workflow, request.node_id, state, {
      engine: this.#engine,
      credentials: this.#credentialsFor(actor.userId),
      context: request.context,
      ...(request.iteration ? { iteration: request.iteration } : {}),
    });
  }

  async #documentOf(actor: Actor, request: NodeRunRequest): Promise<{ document: unknown; workflowId?: string }> {
    if (request.workflow_id === undefined) return { document: request.document };
    const workflow = await this.#workflows.findById(request.workflow_id);
    if (!workflow || workflow.owner_id !== actor.userId) throw new AppError("WORKFLOW_NOT_FOUND");
    const version = request.version ?? workflow.version;
    const saved = version === workflow.version ? workflow : await this.#workflows.findVersion(workflow.id, version);
    if (!saved) throw new AppError("VERSION_NOT_FOUND");
    return { document: new StoredDocument(saved.document), workflowId: workflow.id };
  }

  /**
   * The visible state after a superstep of one of the actor's runs, limited to the fields the
   * document declares (a field the workflow no longer has is left out; the rest must still fit).
   */
  async #pastState(
    actor: Actor,
    from: NonNullable<NodeRunRequest["from"]>,
    document: WorkflowDocument,
  ): Promise<Record<string, unknown>> {
    const run = await this.#runs.findById(from.run_id);
    if (!run || run.owner_id !== actor.userId) throw new AppError("RUN_NOT_FOUND");
    const at = from.checkpoint_id !== undefined ? { checkpointId: from.checkpoint_id } : { step: from.superstep ?? -1 };
    const checkpoint = await this.#history.find(run.id, at);
    if (!checkpoint) {
      throw new AppError("RUN_CHECKPOINT_NOT_FOUND", {
        run_id: run.id,
        ...(from.checkpoint_id !== undefined ? { checkpoint_id: from.checkpoint_id } : { superstep: from.superstep }),
      });
    }
    const declared = new Set(document.state.map((field) => field.name));
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(checkpoint.values)) {
      if (declared.has(name) && value !== undefined)
        Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
    }
    return values;
  }
}
