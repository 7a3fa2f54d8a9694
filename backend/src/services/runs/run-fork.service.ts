// Time travel and fork: a run's supersteps as its checkpoints recorded them, and a new run started
// from one of them, with an edited state. The fork executes the parent's document (same workflow
// version) through the queue like any run; the parent is only read. Side effects the parent
// finished after the fork point are reused from its result ledger unless the user chose to run
// them again (decision 0019).
import type { Actor } from "../../core/authz.js";
import { canonicalJson, contentHash } from "../../core/canonical-json.js";
import type { EngineConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import { SIDE_EFFECT_TYPES } from "../../engine/nodes/node-execution.js";
import { importedGraphOf } from "../../engine/runtime/imported-run/imported-graph.js";
import { prepareWorkflow } from "../../engine/runtime/prepare-workflow.js";
import { StoredDocument } from "../../engine/runtime/stored-document.js";
import { stateReadsOf } from "../../engine/validator/node-facts.js";
import type { ValidatedWorkflow } from "../../engine/validator/validator.js";
import type { RunRow } from "../../models/database.model.js";
import type { NodeResultRepository } from "../../repositories/node-result.repository.js";
import type { RunRepository } from "../../repositories/run.repository.js";
import type { RunCheckpoint, RunHistoryRepository, StepNode } from "../../repositories/run-history.repository.js";
import type { PaginationQuery } from "../../schemas/common.schema.js";
import type { ForkRequest } from "../../schemas/run-fork.schema.js";
import { type Page, toPage } from "../page.js";
import type { WorkflowService } from "../workflow.service.js";
import { checkForkState } from "./fork-state.js";
import { type RunView, toRunView } from "./run.service.js";
import type { RunAdmission } from "./run-admission.js";
import { isActive } from "./turn-end-watch.js";

// The hidden channels of engine/compiler/state-channels.ts, which loads LangGraph (not at start).
const VISITS_CHANNEL = "__visits__";
// Engine channels ("__…") and LangGraph's own ("branch:to:…") are not state fields, which are identifiers.
const isHidden = (key: string) => key.startsWith("__") || key.includes(":");
// Node types whose results a fork may reuse: side effects, and Subgraph nodes (the side effects inside them).
const REUSABLE_TYPES: ReadonlySet<string> = new Set([...SIDE_EFFECT_TYPES, "subgraph"]);

export interface StepView {
  superstep: number;
  /** Null for a superstep that wrote no checkpoint (it failed, or the run was stopped in it). */
  checkpoint_id: string | null;
  created_at: string | null;
  nodes: StepNode[];
  state: Record<string, unknown> | null;
}

export interface ForkPreview {
  run_id: string;
  checkpoint_id: string;
  superstep: number;
  /** The nodes the fork runs first (its next superstep). */
  next: string[];
  /** Every side-effect (or Subgraph) node of the workflow: what the fork does with its calls. */
  side_effects: {
    node_id: string;
    type: string;
    /** reuse: the parent's results are used; run_again: chosen to run again; run: the parent has none. */
    action: "reuse" | "run_again" | "run";
    /** How many results the parent finished for the node after the fork point. */
    parent_results: number;
    /** Fields the node's settings read that the edit changes: a reused result may no longer fit. */
    reads_edited: string[];
    /** The node's settings differ from those the parent ran (a fork with another document). */
    settings_changed: boolean;
  }[];
  /** The fields the edit changes. */
  state_changes: string[];
}

interface Plan {
  run: RunRow;
  /** What the fork runs: the parent's document, or the one the request gave. */
  target: { workflowVersion: number | null; contentHash: string; document: string };
  checkpoint: RunCheckpoint;
  state: Record<string, unknown>;
  rerun: string[];
  preview: ForkPreview;
}

export class RunForkService {
  readonly #runs: RunRepository;
  readonly #history: RunHistoryRepository;
  readonly #nodeResults: NodeResultRepository;
  readonly #workflowService: WorkflowService;
  readonly #engine: EngineConfig;
  readonly #admission: RunAdmission;
  readonly #queueTurn: (run: RunRow) => Promise<unknown>;

  constructor(deps: {
    runs: RunRepository;
    history: RunHistoryRepository;
    nodeResults: NodeResultRepository;
    workflowService: WorkflowService;
    engine: EngineConfig;
    admission: RunAdmission;
    /** Hands a created run to the queue (RunService.queueTurn). */
    queueTurn(run: RunRow): Promise<unknown>;
  }) {
    this.#runs = deps.runs;
    this.#history = deps.history;
    this.#nodeResults = deps.nodeResults;
    this.#workflowService = deps.workflowService;
    this.#engine = deps.engine;
    this.#admission = deps.admission;
    this.#queueTurn = deps.queueTurn;
  }

  /**
   * The run's supersteps, oldest first: checkpoint, the nodes that ran in it, the state after it.
   * A superstep that failed wrote no checkpoint: it comes last, with its nodes and no checkpoint
   * or state (fork from the superstep before it to run it again).
   */
  async steps(actor: Actor, runId: string, page: PaginationQuery): Promise<Page<StepView>> {
    await this.#owned(actor, runId);
    const { total, lastStep, items } = await this.#history.steps(runId, page.limit + 1, page.offset);
    const nodes = await this.#history.nodesIn(
      runId,
      items.map((item) => item.step),
    );
    const views: StepView[] = items.map((item) => ({
      superstep: item.step,
      checkpoint_id: item.checkpointId,
      created_at: item.createdAt,
      nodes: nodes.get(item.step) ?? [],
      state: Object.fromEntries(Object.entries(item.values).filter(([key]) => !isHidden(key))),
    }));
    if (page.offset + items.length >= total && page.offset <= total) {
      const unfinished = await this.#history.nodesIn(runId, { after: lastStep });
      for (const [superstep, ran] of [...unfinished].sort(([a], [b]) => a - b)) {
        views.push({ superstep, checkpoint_id: null, created_at: null, nodes: ran, state: null });
      }
    }
    return toPage(views, page);
  }

  /** What a fork would do: the nodes it runs next, and for each side effect, reused or run again. */
  async preview(actor: Actor, runId: string, request: ForkRequest): Promise<ForkPreview> {
    return (await this.#plan(actor, runId, request)).preview;
  }

  /** Creates the fork (queued, admitted against the owner's limits) with its first checkpoint. */
  async fork(actor: Actor, runId: string, request: ForkRequest): Promise<RunView> {
    const { run, target, checkpoint, state, rerun } = await this.#plan(actor, runId, request);
    const { run: created } = await this.#admission.admit(actor.userId, "fork", async (visible) => {
      const result = await this.#runs.create(
        {
          ownerId: actor.userId,
          workflowId: run.workflow_id,
          workflowVersion: target.workflowVersion,
          contentHash: target.contentHash,
          document: target.document,
          trigger: "fork",
          mode: request.mode ?? "full",
          input: run.input,
          context: run.context,
          idempotencyKey: null,
          callbackUrl: null,
          apiKeyId: null,
          fork: { parentRunId: run.id, parentCheckpointId: checkpoint.checkpointId, rerun: JSON.stringify(rerun) },
        },
        {
          visible,
          alongside: async (tx, forkId) => {
            await this.#history.insertForkCheckpoint(
              tx,
              { runId: run.id, checkpointId: checkpoint.checkpointId },
              forkId,
              state,
            );
          },
        },
      );
      await this.#queueTurn(result.run);
      return result;
    });
    return toRunView(created);
  }

  async #plan(actor: Actor, runId: string, request: ForkRequest): Promise<Plan> {
    const run = await this.#owned(actor, runId);
    // A run whose worker may still write checkpoints and results: not forked (see decision 0019).
    if (isActive(run.status)) throw new AppError("RUN_STILL_RUNNING", { status: run.status });
    // An imported run's checkpoints hold the runner's state, which only runner.py reads.
    if (importedGraphOf(new StoredDocument(run.document).parsed()))
      throw new AppError("IMPORTED_RUN_NOT_FORKABLE", { run_id: run.id });
    const at =
      request.checkpoint_id !== undefined ? { checkpointId: request.checkpoint_id } : { step: request.superstep ?? -1 };
    const checkpoint = await this.#history.find(run.id, at);
    if (!checkpoint) throw new AppError("RUN_CHECKPOINT_NOT_FOUND", { run_id: run.id, ...forkPointOf(request) });
    const prepare = (document: unknown) =>
      prepareWorkflow(document, {
        engine: this.#engine,
        resolveWorkflow: this.#workflowService.resolverFor(actor),
        credentialType: this.#workflowService.credentialTypesFor(actor),
        workflowId: run.workflow_id ?? undefined,
      });
    const parentWorkflow = await prepare(new StoredDocument(run.document));
    const workflow = request.document === undefined ? parentWorkflow : await prepare(request.document);
    const state = checkForkState(workflow.document, request.state ?? {});
    const rerun = checkRerun(workflow, request.rerun ?? []);
    const next = await this.#nextNodes(parentWorkflow, run.id, checkpoint.checkpointId);
    // Another document must still have the nodes the checkpoint runs next.
    const missing = next.filter((nodeId) => !workflow.nodes.has(nodeId));
    if (missing.length > 0) throw new AppError("FORK_DOCUMENT_INCOMPATIBLE", { missing });
    const target =
      request.document === undefined
        ? { workflowVersion: run.workflow_version, contentHash: run.content_hash, document: run.document }
        : {
            workflowVersion: null,
            contentHash: contentHash(workflow.document),
            document: JSON.stringify(workflow.document),
          };
    const parentKeys = await this.#nodeResults.keysOf(run.id);
    const visits = (checkpoint.values[VISITS_CHANNEL] ?? {}) as Record<string, number>;
    const stateChanges = Object.keys(state).filter(
      (field) => JSON.stringify(state[field]) !== JSON.stringify(checkpoint.values[field]),
    );
    const side_effects = [...workflow.nodes.values()]
      .filter((node) => REUSABLE_TYPES.has(node.type))
      .map((node) => {
        const parent_results = parentKeys.filter((key) => resultAfter(key, node.id, visits[node.id] ?? 0)).length;
        const action: ForkPreview["side_effects"][number]["action"] = rerun.includes(node.id)
          ? "run_again"
          : parent_results > 0
            ? "reuse"
            : "run";
        // Why a reused result may no longer be what the node would give now: it reads a field the
        // edited state changed, or its settings differ from those the parent ran.
        const reads = stateReadsOf(node);
        const reads_edited = reads === null ? stateChanges : stateChanges.filter((field) => reads.includes(field));
        const before = parentWorkflow.nodes.get(node.id);
        const settings_changed = !before || canonicalJson(before.data) !== canonicalJson(node.data);
        return { node_id: node.id, type: node.type, action, parent_results, reads_edited, settings_changed };
      });
    return {
      run,
      target,
      checkpoint,
      state,
      rerun,
      preview: {
        run_id: run.id,
        checkpoint_id: checkpoint.checkpointId,
        superstep: checkpoint.step,
        next,
        side_effects,
        state_changes: stateChanges,
      },
    };
  }

  /** The nodes LangGraph schedules after the checkpoint (loaded with the engine, on first use). */
  async #nextNodes(workflow: ValidatedWorkflow, runId: string, checkpointId: string): Promise<string[]> {
    const [{ compileWorkflow, withCheckpointer }, saver] = await Promise.all([
      import("../../engine/compiler/compiler.js"),
      this.#history.checkpointReader(),
    ]);
    const graph = compileWorkflow(workflow);
    const snapshot = await graph.getState(
      withCheckpointer({ configurable: { thread_id: runId, checkpoint_ns: "", checkpoint_id: checkpointId } }, saver),
    );
    return [...new Set(snapshot.tasks.map((task) => task.name))];
  }

  async #owned(actor: Actor, id: string): Promise<RunRow> {
    const run = await this.#runs.findById(id);
    if (!run || run.owner_id !== actor.userId) throw new AppError("RUN_NOT_FOUND");
    return run;
  }
}

function forkPointOf(request: ForkRequest): Record<string, unknown> {
  return request.checkpoint_id !== undefined
    ? { checkpoint_id: request.checkpoint_id }
    : { superstep: request.superstep };
}

/** The nodes to run again: each a side-effect or Subgraph node of the workflow (FORK_RERUN_INVALID). */
function checkRerun(workflow: ValidatedWorkflow, rerun: string[]): string[] {
  for (const nodeId of rerun) {
    const node = workflow.nodes.get(nodeId);
    if (!node) throw new AppError("FORK_RERUN_INVALID", { node_id: nodeId, reason: "not_in_workflow" });
    if (!REUSABLE_TYPES.has(node.type))
      throw new AppError("FORK_RERUN_INVALID", { node_id: nodeId, reason: "no_side_effect", type: node.type });
  }
  return [...new Set(rerun)];
}

/**
 * Whether a parent's ledger key (without its run id) is a result of `nodeId` from an execution at
 * or after the fork point: its visit count (the iteration before any `.index`) is at least the
 * node's visits at the checkpoint.
 */
function resultAfter(key: string, nodeId: string, visitsAtFork: number): boolean {
  const [node, iteration] = key.split(":");
  if (node !== nodeId || iteration === undefined) return false;
  return Number.parseInt(iteration.split(".")[0] as string, 10) >= visitsAtFork;
}
