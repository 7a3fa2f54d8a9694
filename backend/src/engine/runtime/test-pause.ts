// A testing aid, inert unless STUDIO_TEST_PAUSE_AT is set: a run stops for good at one exact point
// and says so on stderr, so a crash test can SIGKILL the process right there. The points are
// where the result ledger and the checkpoints take over from each other:
//   ledger:<node>      the node's call returned and its ledger row is written; the node function
//                      has not returned to LangGraph, so its superstep's checkpoint is not written
//   checkpoint:<node>  the first checkpoint after the node finished (its superstep's; inside a
//                      Subgraph, the child workflow's) is committed; nothing after it has started
// Only the run's abort signal (cancel, lease lost) ends a pause.
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { EngineConfig, TestPauseAt } from "../../core/config.js";

/** The first word of the line written at a pause: `superstep-test-pause <point>:<node> run=<id> key=<key>`. */
export const TEST_PAUSE_MARKER = "superstep-test-pause";

export class TestPause {
  readonly #at: TestPauseAt;
  readonly #runId: string;
  readonly #signal: AbortSignal;
  /** The idempotency key of the node execution whose checkpoint is awaited. */
  #armedBy: string | null = null;

  constructor(at: TestPauseAt, runId: string, signal: AbortSignal) {
    this.#at = at;
    this.#runId = runId;
    this.#signal = signal;
  }

  /** Called right after a node's ledger row is written. */
  async afterLedger(nodeId: string, key: string): Promise<void> {
    if (this.#at.point === "ledger" && this.#at.nodeId === nodeId) await this.#stop(key);
  }

  /** Called when a node finished: for `checkpoint:<node>`, the next committed checkpoint is the point. */
  nodeFinished(nodeId: string, key: string): void {
    if (this.#at.point === "checkpoint" && this.#at.nodeId === nodeId) this.#armedBy ??= key;
  }

  /** The checkpointer, with a pause after the commit of the checkpoint that `nodeFinished` armed. */
  watch(saver: BaseCheckpointSaver): BaseCheckpointSaver {
    if (this.#at.point !== "checkpoint") return saver;
    return new Proxy(saver, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property !== "put") return value.bind(target);
        return async (...args: unknown[]) => {
          const stored: unknown = await value.apply(target, args);
          const key = this.#armedBy;
          if (key !== null) await this.#stop(key);
          return stored;
        };
      },
    });
  }

  #stop(key: string): Promise<never> {
    process.stderr.write(`${TEST_PAUSE_MARKER} ${this.#at.point}:${this.#at.nodeId} run=${this.#runId} key=${key}\n`);
    const signal = this.#signal;
    return new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }
}

/** The run's pause, or null (always, unless the testing aid is configured). */
export function testPauseFor(engine: EngineConfig, runId: string, signal: AbortSignal): TestPause | null {
  return engine.testPauseAt ? new TestPause(engine.testPauseAt, runId, signal) : null;
}
