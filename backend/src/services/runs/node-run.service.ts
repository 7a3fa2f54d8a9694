// Run one node: a single node of a saved workflow or of the editor's unsaved document, on a state
// taken from a superstep of a past run and/or typed as JSON, without running anything upstream.
// The node executes for real (its LLM call, HTTP request or email happen); nothing is written to
// the database, and the past run the state came from is only read (decision 0020). A one-node run
// draws on the user's start allowance (STUDIO_USER_RUN_RATE) like a run, and at most
// STUDIO_USER_MAX_RUNS of one user's execute at once: it spends what a run spends.
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
import type { TriggerRateLimiter } from "./trigger-rate.js";

// What a refused caller is told to wait: one-node runs end at their own pace.
const NODE_RUN_RETRY_SECONDS = 10;

export class NodeRunService {
  readonly #rate: TriggerRateLimiter;
  readonly #maxRunning: number;
  /** One-node runs executing now, per user. */
  readonly #running = new Map<string, number>();
  readonly #runs: RunRepository;
  readonly #history: RunHistoryRepository;
  readonly #workflows: WorkflowRepository;
  readonly #workflowService: WorkflowService;
  readonly #engine: EngineConfig;
  readonly #credentialsFor: (ownerId: string) => CredentialResolver;

  constructor(deps: {
    rate: TriggerRateLimiter;
    maxRunning: number;
    runs: RunRepository;
    history: RunHistoryRepository;
    workflows: WorkflowRepository;
    workflowService: WorkflowService;
    engine: EngineConfig;
    credentialsFor(ownerId: string): CredentialResolver;
  }) {
    this.#rate = deps.rate;
    this.#maxRunning = deps.maxRunning;
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
   * RUN_NOT_FOUND, RUN_CHECKPOINT_NOT_FOUND, FORK_STATE_INVALID, and the user's limits:
   * RUN_LIMIT_REACHED (as many executing as STUDIO_USER_MAX_RUNS) or RATE_LIMITED.
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
    const release = this.#admit(actor.userId);
    try {
      // The engine (LangGraph, the providers) loads with the first one-node run, not at start.
      const { runOneNode } = await import("../../engine/runtime/one-node.js");
      return await runOneNode(workflow, request.node_id, state, {
        engine: this.#engine,
        credentials: this.#credentialsFor(actor.userId),
        context: request.context,
        ...(request.iteration ? { iteration: request.iteration } : {}),
      });
    } finally {
      release();
    }
  }

  /** Counts one more of the user's one-node runs, or refuses it; returns its release. */
  #admit(userId: string): () => void {
    const running = this.#running.get(userId) ?? 0;
    if (running >= this.#maxRunning) {
      throw new AppError("RUN_LIMIT_REACHED", {
        reason: "node_runs",
        limit: this.#maxRunning,
        retry_after_seconds: NODE_RUN_RETRY_SECONDS,
      });
    }
    this.#rate.take(userId);
    this.#running.set(userId, running + 1);
    return () => {
      const left = (this.#running.get(userId) ?? 1) - 1;
      if (left > 0) this.#running.set(userId, left);
      else this.#running.delete(userId);
    };
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
