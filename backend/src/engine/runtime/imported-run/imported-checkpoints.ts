// An imported run's checkpoints: each `checkpoint` line of the runner is kept as a LangGraph
// checkpoint of the run's thread, through the run's own checkpointer (the database saver, fenced by
// the run's lease), so it is durable and a resumed turn finds it the way every run's checkpoint is
// found. The runner's blob is opaque here; only runner.py reads it back (`--checkpoint`).
import { type BaseCheckpointSaver, emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";

/** The channel the runner's state is kept in. */
export const IMPORTED_CHANNEL = "__imported_runner__";

/**
 * What a checkpoint of an imported run holds: the runner's blob, or (after `checkpoint_unavailable`)
 * no blob, so that a resume runs the graph again from the start; both with the run's own input.
 */
export type ImportedCheckpoint =
  | { runner: unknown; superstep: number; input: unknown }
  | { runner: null; unavailable: string; input: unknown };

export class ImportedCheckpoints {
  readonly #saver: BaseCheckpointSaver;
  readonly #threadId: string;
  #parentId: string | undefined;

  constructor(saver: BaseCheckpointSaver, threadId: string) {
    this.#saver = saver;
    this.#threadId = threadId;
  }

  /** The newest one, or null when the run has none yet. */
  async latest(): Promise<ImportedCheckpoint | null> {
    const tuple = await this.#saver.getTuple({ configurable: { thread_id: this.#threadId, checkpoint_ns: "" } });
    if (!tuple) return null;
    this.#parentId = tuple.checkpoint.id;
    const kept = tuple.checkpoint.channel_values?.[IMPORTED_CHANNEL] as ImportedCheckpoint | undefined;
    return kept ?? null;
  }

  async save(value: ImportedCheckpoint, step: number): Promise<void> {
    const checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(step),
      ts: new Date().toISOString(),
      channel_values: { [IMPORTED_CHANNEL]: value },
      channel_versions: { [IMPORTED_CHANNEL]: step + 2 },
    };
    const stored = await this.#saver.put(
      {
        configurable: {
          thread_id: this.#threadId,
          checkpoint_ns: "",
          ...(this.#parentId ? { checkpoint_id: this.#parentId } : {}),
        },
      },
      checkpoint,
      { source: "loop", step, parents: {} },
      {},
    );
    this.#parentId = stored.configurable?.checkpoint_id as string | undefined;
  }
}
