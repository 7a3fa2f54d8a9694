// LangGraph checkpoints in the studio database (tables `checkpoints` and `checkpoint_writes`),
// the same queries on SQLite and PostgreSQL. Values are JSON text written by PlainJsonSerde, so
// user data never comes back as LangChain objects.
//
// Each write is all or nothing (its own transaction, or its own savepoint in a shared one: see
// write-batcher.ts). With a `fence`, every write to the run's thread first checks the run row's
// lease generation and writes nothing when another worker has taken the run since: on SQLite by
// reading it (the transaction holds the write lock from its start), on PostgreSQL by updating the
// row (the UPDATE takes the row lock, so a takeover that increments lease_gen is serialised with it).
//
// Whole checkpoints are stored, channel values included (as MemorySaver and the SQLite saver do):
// `newVersions` is not used to store only changed channels.
// Checkpoint ids are compared in JavaScript by code point, never by the database collation, which
// in PostgreSQL depends on the locale the cluster was created with.
import { isDeepStrictEqual } from "node:util";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import type { Insertable, Kysely, Selectable, Transaction } from "kysely";
import { AppError } from "../core/errors.js";
import type { CheckpointsTable, CheckpointWritesTable, Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";
import { PlainJsonSerde } from "./plain-json.serde.js";
import { preparedQuery } from "./prepared-query.js";
import { stillLeased } from "./run.repository.js";
import { type UnnestColumn, unnestInsert } from "./unnest-insert.js";
import { flushStaged, type StagedInsert, stage, WriteBatcher } from "./write-batcher.js";

/** The run and lease generation a worker writes under. */
export interface CheckpointFence {
  runId: string;
  leaseGen: number;
}

export interface DatabaseCheckpointSaverOptions {
  /** Must produce "json" values (text); PlainJsonSerde by default. */
  serde?: SerializerProtocol;
  /** When set, writes to the thread `runId` require `runs.lease_gen` to still equal `leaseGen`. */
  fence?: CheckpointFence;
  /** Applies the writes (shared transactions: write-batcher.ts); each in its own transaction by default. */
  writes?: WriteBatcher;
  /**
   * When a write is answered: once on disk (default), or once committed, for a run whose other
   * outputs wait for the disk themselves (see WriteBatcher.run).
   */
  acknowledge?: "disk" | "commit";
  /**
   * The fenced run's thread has no checkpoint yet (the run's first turn, not a fork): its first
   * read of the latest checkpoint is answered without the database, where nothing can be found.
   */
  newThread?: boolean;
}

type CheckpointRow = Selectable<CheckpointsTable>;
type WriteRow = Insertable<CheckpointWritesTable>;
type CheckpointInsert = Insertable<CheckpointsTable>;
type ListedRow = Omit<CheckpointRow, "checkpoint" | "created_at">;

const CHECKPOINT_KEY = ["thread_id", "checkpoint_ns", "checkpoint_id"] as const;
const WRITE_KEY = ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"] as const;
const decoder = new TextDecoder();

// The queries of every superstep, compiled once.
const latestIds = preparedQuery<{ threadId: string; namespace: string }, { checkpoint_id: string }>((db, p) =>
  db
    .selectFrom("checkpoints")
    .select("checkpoint_id")
    .where("thread_id", "=", p.threadId)
    .where("checkpoint_ns", "=", p.namespace),
);
const checkpointById = preparedQuery<{ threadId: string; namespace: string; checkpointId: string }, CheckpointRow>(
  (db, p) =>
    db
      .selectFrom("checkpoints")
      .selectAll()
      .where("thread_id", "=", p.threadId)
      .where("checkpoint_ns", "=", p.namespace)
      .where("checkpoint_id", "=", p.checkpointId),
);
const writesOf = preparedQuery<
  { threadId: string; namespace: string; checkpointId: string },
  Pick<WriteRow, "task_id" | "idx" | "channel" | "value" | "task_path">
>((db, p) =>
  db
    .selectFrom("checkpoint_writes")
    .select(["task_id", "idx", "channel", "value", "task_path"])
    .where("thread_id", "=", p.threadId)
    .where("checkpoint_ns", "=", p.namespace)
    .where("checkpoint_id", "=", p.checkpointId),
);
const upsertCheckpoint = preparedQuery((db, v: Insertable<CheckpointsTable>) =>
  db
    .insertInto("checkpoints")
    .values({
      thread_id: v.thread_id,
      checkpoint_ns: v.checkpoint_ns,
      checkpoint_id: v.checkpoint_id,
      parent_checkpoint_id: v.parent_checkpoint_id,
      checkpoint: v.checkpoint,
      metadata: v.metadata,
      created_at: v.created_at,
    })
    .onConflict((oc) =>
      oc.columns(CHECKPOINT_KEY).doUpdateSet({
        parent_checkpoint_id: v.parent_checkpoint_id,
        checkpoint: v.checkpoint,
        metadata: v.metadata,
      }),
    ),
);
const writeValues = (v: WriteRow): WriteRow => ({
  thread_id: v.thread_id,
  checkpoint_ns: v.checkpoint_ns,
  checkpoint_id: v.checkpoint_id,
  task_id: v.task_id,
  idx: v.idx,
  channel: v.channel,
  value: v.value,
  task_path: v.task_path,
});
/** Regular writes never replace one already stored under its (task, index): up to 8 in one statement. */
const WRITES_PER_STATEMENT = 8;
const insertWritesOf = Array.from({ length: WRITES_PER_STATEMENT }, (_, n) =>
  preparedQuery((db, v: Record<string, unknown>) =>
    db
      .insertInto("checkpoint_writes")
      .values(
        Array.from({ length: n + 1 }, (_, i) =>
          writeValues(
            Object.fromEntries(WRITE_COLUMNS.map((column) => [column, v[`${column}${i}`]])) as unknown as WriteRow,
          ),
        ),
      )
      .onConflict((oc) => oc.columns(WRITE_KEY).doNothing()),
  ),
);
const WRITE_COLUMNS = [
  "thread_id",
  "checkpoint_ns",
  "checkpoint_id",
  "task_id",
  "idx",
  "channel",
  "value",
  "task_path",
] as const satisfies readonly (keyof WriteRow)[];

// A pool batch's checkpoints and task writes of all its runs, with the conflict rules of the
// statements above, inserted with its other staged rows in one statement (write-batcher.ts, `stage`).
const CHECKPOINT_COLUMNS = [
  ["thread_id", "text"],
  ["checkpoint_ns", "text"],
  ["checkpoint_id", "text"],
  ["parent_checkpoint_id", "text"],
  ["checkpoint", "text"],
  ["metadata", "text"],
  ["created_at", "text"],
] as const satisfies readonly UnnestColumn<CheckpointInsert>[];
const WRITE_UNNEST_COLUMNS = WRITE_COLUMNS.map(
  (name) => [name, name === "idx" ? "integer" : "text"] as const,
) satisfies readonly UnnestColumn<WriteRow>[];
const keyOf = (row: CheckpointInsert | WriteRow) =>
  JSON.stringify(["idx" in row ? [row.task_id, row.idx] : null, row.thread_id, row.checkpoint_ns, row.checkpoint_id]);
const stagedCheckpoints: StagedInsert<CheckpointInsert> = {
  insert: unnestInsert<CheckpointInsert>(
    "checkpoints",
    CHECKPOINT_COLUMNS,
    `on conflict (${CHECKPOINT_KEY.join(", ")}) do update set parent_checkpoint_id = excluded.parent_checkpoint_id, checkpoint = excluded.checkpoint, metadata = excluded.metadata`,
  ),
  key: keyOf,
};
/** Task writes that keep the first row under a key (regular), or the last (special: `key`). */
const stagedWritesOf = (onConflict: string, key?: (row: WriteRow) => string): StagedInsert<WriteRow> => ({
  insert: unnestInsert<WriteRow>(
    "checkpoint_writes",
    WRITE_UNNEST_COLUMNS,
    `on conflict (${WRITE_KEY.join(", ")}) ${onConflict}`,
  ),
  ...(key ? { key } : {}),
});
const stagedWrites = stagedWritesOf("do nothing");
const stagedSpecialWrites = stagedWritesOf(
  "do update set channel = excluded.channel, value = excluded.value, task_path = excluded.task_path",
  keyOf,
);

async function insertWrites(tx: Kysely<Database>, rows: WriteRow[]): Promise<void> {
  if (stage(tx, stagedWrites, rows)) return;
  for (let start = 0; start < rows.length; start += WRITES_PER_STATEMENT) {
    const chunk = rows.slice(start, start + WRITES_PER_STATEMENT);
    const values: Record<string, unknown> = {};
    chunk.forEach((row, i) => {
      for (const column of WRITE_COLUMNS) values[`${column}${i}`] = row[column];
    });
    await (insertWritesOf[chunk.length - 1] as (typeof insertWritesOf)[number])(tx, values);
  }
}
/** A special write (error, interrupt, resume…) always does. */
const upsertWrite = preparedQuery((db, v: WriteRow) =>
  db
    .insertInto("checkpoint_writes")
    .values(writeValues(v))
    .onConflict((oc) =>
      oc.columns(WRITE_KEY).doUpdateSet((eb) => ({
        channel: eb.ref("excluded.channel"),
        value: eb.ref("excluded.value"),
        task_path: eb.ref("excluded.task_path"),
      })),
    ),
);
/** Code-point order (the order of PostgreSQL's "C" collation and SQLite's BINARY). */
function compareText(a: string, b: string): number {
  return compareWritesSortKeys([a, "", 0], [b, "", 0]);
}

function threadIdOf(config: RunnableConfig): string | undefined {
  const value: unknown = config.configurable?.thread_id;
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new Error("The configurable thread_id must be a string.");
}

function namespaceOf(config: RunnableConfig): string {
  const value: unknown = config.configurable?.checkpoint_ns;
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new Error("The configurable checkpoint_ns must be a string.");
  return value;
}

/** The stored index of a write: its position, or the fixed negative index of a special channel. */
function writeIndex(channel: string, position: number): number {
  return Object.hasOwn(WRITES_IDX_MAP, channel) ? (WRITES_IDX_MAP[channel] as number) : position;
}

function matchesFilter(metadata: unknown, filter: Record<string, unknown>): boolean {
  const record = metadata !== null && typeof metadata === "object" ? (metadata as Record<string, unknown>) : {};
  return Object.entries(filter).every(([key, expected]) =>
    isDeepStrictEqual(Object.hasOwn(record, key) ? record[key] : undefined, expected),
  );
}

export class DatabaseCheckpointSaver extends BaseCheckpointSaver {
  readonly #db: Kysely<Database>;
  readonly #fence: CheckpointFence | undefined;
  readonly #writes: WriteBatcher;
  readonly #acknowledge: "disk" | "commit";
  #newThread: boolean;

  constructor(db: Kysely<Database>, options: DatabaseCheckpointSaverOptions = {}) {
    super(options.serde ?? new PlainJsonSerde());
    this.#db = db;
    this.#fence = options.fence;
    this.#writes = options.writes ?? new WriteBatcher(db, { batching: "none" });
    this.#acknowledge = options.acknowledge ?? "disk";
    this.#newThread = options.newThread === true && options.fence !== undefined;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const namespace = namespaceOf(config);
    let checkpointId: string | undefined = getCheckpointId(config) || undefined;
    if (checkpointId === undefined) {
      if (this.#newThread && threadId === this.#fence?.runId && namespace === "") {
        this.#newThread = false;
        return undefined;
      }
      const { rows: ids } = await latestIds(this.#db, { threadId, namespace });
      for (const { checkpoint_id } of ids) {
        if (checkpointId === undefined || compareText(checkpoint_id, checkpointId) > 0) checkpointId = checkpoint_id;
      }
      if (checkpointId === undefined) return undefined;
    }
    const [row] = (await checkpointById(this.#db, { threadId, namespace, checkpointId })).rows;
    return row ? this.#tuple(row, await this.#load(row.metadata)) : undefined;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, limit, filter } = options;
    const threadId = threadIdOf(config);
    const namespace: unknown = config.configurable?.checkpoint_ns;
    const checkpointId: unknown = config.configurable?.checkpoint_id;
    let query = this.#db
      .selectFrom("checkpoints")
      .select(["thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "metadata"]);
    if (threadId !== undefined) query = query.where("thread_id", "=", threadId);
    if (typeof namespace === "string") query = query.where("checkpoint_ns", "=", namespace);
    if (typeof checkpointId === "string" && checkpointId !== "")
      query = query.where("checkpoint_id", "=", checkpointId);
    const rows: ListedRow[] = await query.execute();
    // Newest first (checkpoint ids are time-ordered uuid6), then by thread and namespace.
    rows.sort(
      (a, b) =>
        compareText(b.checkpoint_id, a.checkpoint_id) ||
        compareText(a.thread_id, b.thread_id) ||
        compareText(a.checkpoint_ns, b.checkpoint_ns),
    );
    const beforeId: unknown = before?.configurable?.checkpoint_id;
    let remaining = limit;
    for (const row of rows) {
      if (typeof beforeId === "string" && beforeId !== "" && compareText(row.checkpoint_id, beforeId) >= 0) continue;
      const metadata = await this.#load(row.metadata);
      // Filters are matched here, on the decoded metadata: keys never reach the SQL text.
      if (filter && !matchesFilter(metadata, filter)) continue;
      if (remaining !== undefined) {
        if (remaining <= 0) break;
        remaining -= 1;
      }
      const stored = await this.#db
        .selectFrom("checkpoints")
        .select(["checkpoint", "created_at"])
        .where("thread_id", "=", row.thread_id)
        .where("checkpoint_ns", "=", row.checkpoint_ns)
        .where("checkpoint_id", "=", row.checkpoint_id)
        .executeTakeFirst();
      if (!stored) continue; // deleted since the listing query
      yield await this.#tuple({ ...row, ...stored }, metadata);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) {
      throw new Error("Cannot store a checkpoint: the config has no configurable.thread_id.");
    }
    const namespace = namespaceOf(config);
    if (threadId === this.#fence?.runId) this.#newThread = false;
    const parentId: unknown = config.configurable?.checkpoint_id;
    const [checkpointText, metadataText] = await Promise.all([this.#dump(checkpoint), this.#dump(metadata)]);
    const values = {
      thread_id: threadId,
      checkpoint_ns: namespace,
      checkpoint_id: checkpoint.id,
      parent_checkpoint_id: typeof parentId === "string" && parentId !== "" ? parentId : null,
      checkpoint: checkpointText,
      metadata: metadataText,
      created_at: nowIso(),
    };
    await this.#write(threadId, async (tx) => {
      if (!stage(tx, stagedCheckpoints, [values])) await upsertCheckpoint(tx, values);
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  /**
   * Writes of one task against a checkpoint (which need not be stored yet). As in MemorySaver:
   * a regular write never replaces one already stored under its (task, index), a special one
   * (error, scheduled, interrupt, resume: negative indexes) always does.
   */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new Error("Cannot store writes: the config has no configurable.thread_id.");
    const checkpointId: unknown = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== "string" || checkpointId === "") {
      throw new Error("Cannot store writes: the config has no configurable.checkpoint_id.");
    }
    const namespace = namespaceOf(config);
    const rows: WriteRow[] = await Promise.all(
      writes.map(async ([channel, value], position) => ({
        thread_id: threadId,
        checkpoint_ns: namespace,
        checkpoint_id: checkpointId,
        task_id: taskId,
        idx: writeIndex(channel, position),
        channel,
        value: await this.#dump(value),
        task_path: taskPath ?? "",
      })),
    );
    if (rows.length === 0) return;
    const regular = rows.filter((row) => row.idx >= 0);
    // The last of several writes to one special channel wins (one statement cannot update a row twice).
    const special = [...new Map(rows.filter((row) => row.idx < 0).map((row) => [row.idx, row])).values()];
    await this.#write(threadId, async (tx) => {
      await insertWrites(tx, regular);
      if (!stage(tx, stagedSpecialWrites, special)) for (const row of special) await upsertWrite(tx, row);
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.#write(
      threadId,
      async (tx) => {
        // After the rows this batch staged (the thread's among them), as if each had been inserted in turn.
        await flushStaged(tx);
        await tx.deleteFrom("checkpoint_writes").where("thread_id", "=", threadId).execute();
        await tx.deleteFrom("checkpoints").where("thread_id", "=", threadId).execute();
      },
      false,
    );
  }

  /** All or nothing: the lease check when the thread is the fenced run's, then the write. */
  async #write(
    threadId: string,
    write: (tx: Transaction<Database>) => Promise<void>,
    // The write only stages rows where it can (write-batcher.ts, `stages`).
    stages = true,
  ): Promise<void> {
    const fence = this.#fence;
    await this.#writes.run(
      async (tx, scope) => {
        // Checked once per batch; see stillLeased.
        if (
          fence &&
          fence.runId === threadId &&
          !(await stillLeased(tx, scope, this.#writes.holdsWriteLock, fence.runId, fence.leaseGen))
        ) {
          throw new AppError("LEASE_LOST", { run_id: fence.runId, lease_gen: fence.leaseGen });
        }
        await write(tx);
      },
      threadId,
      { acknowledge: this.#acknowledge, fence: fence?.runId === threadId ? fence : undefined, stages },
    );
  }

  async #tuple(row: CheckpointRow, metadata: unknown): Promise<CheckpointTuple> {
    const { thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id } = row;
    const checkpoint = (await this.#load(row.checkpoint)) as Checkpoint;
    if (checkpoint.v < 4 && parent_checkpoint_id !== null) {
      await this.#migratePendingSends(checkpoint, thread_id, checkpoint_ns, parent_checkpoint_id);
    }
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id, checkpoint_ns, checkpoint_id } },
      checkpoint,
      metadata: metadata as CheckpointMetadata,
      pendingWrites: await this.#pendingWrites(thread_id, checkpoint_ns, checkpoint_id),
    };
    if (parent_checkpoint_id !== null) {
      tuple.parentConfig = { configurable: { thread_id, checkpoint_ns, checkpoint_id: parent_checkpoint_id } };
    }
    return tuple;
  }

  /** The writes stored against a checkpoint, in `writesSortKey` order (task path, task id, index). */
  async #pendingWrites(threadId: string, namespace: string, checkpointId: string): Promise<CheckpointPendingWrite[]> {
    const { rows } = await writesOf(this.#db, { threadId, namespace, checkpointId });
    rows.sort((a, b) =>
      compareWritesSortKeys(writesSortKey(a.task_path, a.task_id, a.idx), writesSortKey(b.task_path, b.task_id, b.idx)),
    );
    return Promise.all(
      rows.map(async (row): Promise<CheckpointPendingWrite> => [row.task_id, row.channel, await this.#load(row.value)]),
    );
  }

  /** Checkpoints before format 4 kept pending sends in the parent's writes (as MemorySaver migrates them). */
  async #migratePendingSends(checkpoint: Checkpoint, threadId: string, namespace: string, parentId: string) {
    const parentWrites = await this.#pendingWrites(threadId, namespace, parentId);
    const sends = parentWrites.filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
    checkpoint.channel_values ??= {};
    checkpoint.channel_values[TASKS] = sends;
    checkpoint.channel_versions ??= {};
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  async #dump(value: unknown): Promise<string> {
    // The studio's own serializer gives the stored text without a round trip through bytes.
    if (this.serde instanceof PlainJsonSerde) return this.serde.dumps(value);
    const [type, bytes] = await this.serde.dumpsTyped(value);
    if (type !== "json") throw new Error(`The checkpoint serializer must write "json" values, not "${type}".`);
    return decoder.decode(bytes);
  }

  #load(text: string): Promise<unknown> {
    return this.serde.loadsTyped("json", text);
  }
}
