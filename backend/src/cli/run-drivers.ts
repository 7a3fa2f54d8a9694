// Two ways `superstep run` executes a workflow. Recorded: in the studio's database, as a run of
// the owner account with trigger `cli` (durable, listed with the other runs, and continued or
// answered later by id). Local: in memory only, when the studio has no database or account yet,
// with --no-record, or with --workflows (subgraphs from files); such a run ends with the command.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { buildContainer, type Container } from "../api/deps.js";
import type { Actor } from "../core/authz.js";
import type { Config } from "../core/config.js";
import { createLogger } from "../core/logging.js";
import type { HumanRequest } from "../engine/nodes/human.node.js";
import type { StudioEvent } from "../engine/runtime/events.js";
import { type RunOptions, runStream } from "../engine/runtime/runtime.js";
import { SQLITE_FILE } from "../repositories/database.js";
import type { RunView } from "../services/runs/run.service.js";

/** Why a run is kept in memory only, in words for the user. */
export const NOT_RECORDED = {
  noRecord: "--no-record was given",
  workflows:
    "--workflows takes subgraphs from files, and a run recorded in the studio takes them from the studio's saved workflows",
  noDatabase: (file: string) =>
    `the studio has no database yet at ${file}; start the studio (superstep start) and create the owner account`,
  noOwner: "the studio's database has no owner account yet; create it in the studio (POST /api/auth/setup)",
} as const;

export interface Turn {
  runId: string;
  status: string;
  state: Record<string, unknown>;
  output: Record<string, unknown>;
  waiting?: HumanRequest;
}

export interface RunDriver {
  /** Where the run is kept, for the closing line. */
  readonly recorded: boolean;
  /** For a run kept in memory only: why it is not recorded. */
  readonly notRecordedBecause: string | null;
  start(document: unknown, input: unknown): Promise<Turn>;
  resume(answer: Record<string, unknown>): Promise<Turn>;
  continue(): Promise<Turn>;
  /** Ctrl+C: stops the run. */
  cancel(): void;
  close(): Promise<void>;
}

type Show = (event: StudioEvent) => void;

export class LocalDriver implements RunDriver {
  readonly recorded = false;
  readonly notRecordedBecause: string;
  readonly #controller = new AbortController();
  readonly #base: RunOptions;
  readonly #show: Show;
  #document: unknown = null;
  #last: { runId: string; nextSeq: number } | null = null;

  constructor(base: RunOptions, show: Show, notRecordedBecause: string) {
    this.#base = { ...base, checkpointer: new MemorySaver(), signal: this.#controller.signal };
    this.#show = show;
    this.notRecordedBecause = notRecordedBecause;
  }

  async #run(input: unknown, options: RunOptions): Promise<Turn> {
    const run = runStream(this.#document, input, options);
    let next = await run.next();
    while (!next.done) {
      this.#show(next.value);
      next = await run.next();
    }
    const outcome = next.value;
    this.#last = { runId: outcome.runId, nextSeq: outcome.nextSeq };
    return {
      runId: outcome.runId,
      status: outcome.status,
      state: outcome.state,
      output: outcome.output,
      waiting: outcome.waiting,
    };
  }

  start(document: unknown, input: unknown): Promise<Turn> {
    this.#document = document;
    return this.#run(input, this.#base);
  }

  #again(resume: RunOptions["resume"]): Promise<Turn> {
    const last = this.#last as { runId: string; nextSeq: number };
    return this.#run(null, { ...this.#base, runId: last.runId, firstSeq: last.nextSeq, resume });
  }

  resume(answer: Record<string, unknown>): Promise<Turn> {
    return this.#again({ kind: "human", input: answer });
  }

  continue(): Promise<Turn> {
    return this.#again({ kind: "continue" });
  }

  cancel(): void {
    this.#controller.abort();
  }

  async close(): Promise<void> {}
}

export class RecordedDriver implements RunDriver {
  readonly recorded = true;
  readonly notRecordedBecause = null;
  readonly #container: Container;
  readonly #owner: Actor;
  readonly #mode: "full" | "step";
  readonly #show: Show;
  #runId: string | null = null;
  #unsubscribe: (() => void) | null = null;

  constructor(container: Container, owner: Actor, mode: "full" | "step", show: Show) {
    this.#container = container;
    this.#owner = owner;
    this.#mode = mode;
    this.#show = show;
  }

  /** The studio's database, when it exists and has an owner account; otherwise why not. */
  static async open(
    config: Config,
    mode: "full" | "step",
    show: Show,
  ): Promise<{ driver: RecordedDriver } | { notRecordedBecause: string }> {
    const file = join(config.dataDir, SQLITE_FILE);
    if (!config.databaseUrl && !existsSync(file)) return { notRecordedBecause: NOT_RECORDED.noDatabase(file) };
    // Its one run executes right here (executeNow), not on a run thread, and its events come back
    // on the in-memory bus: no Redis queue or bus, whatever REDIS_URL says.
    const container = await buildContainer(
      { ...config, runThreads: 0, redisUrl: null, runJobs: true },
      createLogger("silent"),
    );
    const owner = await container.auth.ownerActor();
    if (!owner) {
      await container.close();
      return { notRecordedBecause: NOT_RECORDED.noOwner };
    }
    return { driver: new RecordedDriver(container, owner, mode, show) };
  }

  /** Takes up a recorded run of the owner's, to continue or answer it (RUN_NOT_FOUND otherwise). */
  async attach(runId: string): Promise<RunView> {
    const run = await this.#container.runs.get(this.#owner, runId);
    this.#runId = run.id;
    this.#unsubscribe = this.#container.bus.subscribe(run.id, this.#show);
    return run;
  }

  async #turn(): Promise<Turn> {
    const id = this.#runId as string;
    await this.#container.runs.executeNow(id);
    const run = await this.#container.runs.get(this.#owner, id);
    // What is printed (the run's state, output or question) is on disk first, as an HTTP answer is.
    await this.#container.database.settled();
    return {
      runId: id,
      status: run.status,
      state: (run.state ?? {}) as Record<string, unknown>,
      output: (run.output ?? {}) as Record<string, unknown>,
      waiting: (run.waiting ?? undefined) as HumanRequest | undefined,
    };
  }

  async start(document: unknown, input: unknown): Promise<Turn> {
    const run = await this.#container.runs.createForDocument(
      this.#owner,
      document,
      { input: (input ?? {}) as Record<string, unknown>, mode: this.#mode },
      "cli",
    );
    this.#runId = run.id;
    this.#unsubscribe = this.#container.bus.subscribe(run.id, this.#show);
    return this.#turn();
  }

  async resume(answer: Record<string, unknown>): Promise<Turn> {
    await this.#container.runs.resume(this.#owner, this.#runId as string, answer, "caller");
    return this.#turn();
  }

  async continue(): Promise<Turn> {
    await this.#container.runs.continue(this.#owner, this.#runId as string, "caller");
    return this.#turn();
  }

  cancel(): void {
    if (this.#runId) void this.#container.runs.cancel(this.#owner, this.#runId).catch(() => {});
  }

  async close(): Promise<void> {
    this.#unsubscribe?.();
    await this.#container.close();
  }
}
