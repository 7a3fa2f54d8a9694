// Runs and their events. Every write a worker makes is fenced by the run's lease_gen: once another
// worker has taken the run (lease_gen + 1), the old holder's writes change nothing.
import { randomUUIDv7 } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database, RunEventRow, RunRow } from "../models/database.model.js";
import { queueCallback } from "./callback-outbox.repository.js";
import { nowIso } from "./clock.js";
import { isUniqueViolation } from "./database-errors.js";
import { preparedQuery } from "./prepared-query.js";
import { insertUnnestedIf, type UnnestGuard, type UnnestTarget, unnestInsert } from "./unnest-insert.js";
import { type Fence, leaseScopeKey, type StagedInsert, stage, WriteBatcher, type WriteScope } from "./write-batcher.js";

export interface NewRun {
  ownerId: string;
  workflowId: string | null;
  workflowVersion: number | null;
  contentHash: string;
  document: string;
  trigger: string;
  mode: string;
  input: string;
  context: string;
  idempotencyKey: string | null;
  callbackUrl: string | null;
  apiKeyId: string | null;
  /** A fork: the run and checkpoint it starts from, and the nodes it runs again (JSON list). */
  fork?: { parentRunId: string; parentCheckpointId: string; rerun: string };
  /** An editor run's pinned outputs (JSON object by node id). */
  pins?: string | null;
  /** The schedule whose fire started the run. */
  scheduleId?: string | null;
}

export interface RunEventInput {
  seq: number;
  type: string;
  node_id: string | null;
  superstep: number | null;
  ts: string;
  data: string;
}

export interface RunEnding {
  status: string;
  state: string | null;
  output: string | null;
  error: string | null;
  waiting: string | null;
  expiresAt: string | null;
  metrics: string | null;
  finished: boolean;
  /**
   * The event that announces this ending (run_finished, run_waiting or run_paused), recorded in
   * the same transaction: whoever sees it finds the run's row already saying so.
   */
  event?: RunEventInput;
  /**
   * False when the run has no callback URL (set when it was created, never changed): a final
   * ending then has no callback to queue, and does not ask the database to find none.
   */
  callback?: boolean;
}

export interface RunFilter {
  workflowId?: string;
  status?: string;
  trigger?: string;
  scheduleId?: string;
  /** Created at or after this ISO time. */
  from?: string;
  /** Created at or before this ISO time. */
  to?: string;
  /** The start or the end of a run's id: the runs page shows the end (a UUIDv7 starts with its time). */
  idPart?: string;
}

const ACTIVE = ["queued", "running"];
const TERMINAL = ["ok", "error", "cancelled", "timeout", "expired"];
// The indexes on status hold the runs of one status each (migration 0009), and a database uses
// such an index only when the query's own text says its runs have that status: these statuses
// are written into the SQL, never bound as parameters (a prepared statement's plan could not
// use the index).
const statusIs = (status: "queued" | "running" | "waiting") => sql<boolean>`status = ${sql.lit(status)}`;
const STATUS_IS_ACTIVE = sql<boolean>`status in (${sql.join(ACTIVE.map((status) => sql.lit(status)))})`;

// The queries of every run's path (trigger, lease, events, ending), compiled once.
const RUN_COLUMNS = [
  "id",
  "owner_id",
  "workflow_id",
  "workflow_version",
  "content_hash",
  "document",
  "trigger",
  "mode",
  "status",
  "input",
  "context",
  "state",
  "output",
  "error",
  "waiting",
  "pending_resume",
  "expires_at",
  "metrics",
  "lease_gen",
  "lease_owner",
  "lease_expires_at",
  "turn_started_at",
  "attempt",
  "next_seq",
  "idempotency_key",
  "callback_url",
  "api_key_id",
  "parent_run_id",
  "parent_checkpoint_id",
  "fork_rerun",
  "pins",
  "schedule_id",
  "created_at",
  "started_at",
  "finished_at",
  "updated_at",
] as const satisfies readonly (keyof RunRow)[];

const insertRun = preparedQuery((db: Kysely<Database>, row: RunRow) =>
  db.insertInto("runs").values(Object.fromEntries(RUN_COLUMNS.map((column) => [column, row[column]])) as RunRow),
);
const selectRun = preparedQuery<{ id: string }, RunRow>((db: Kysely<Database>, p) =>
  db.selectFrom("runs").selectAll().where("id", "=", p.id),
);
const countActive = preparedQuery<{ ownerId: string }, { n: string | number }>((db: Kysely<Database>, p) =>
  db
    .selectFrom("runs")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .where("owner_id", "=", p.ownerId)
    .where(STATUS_IS_ACTIVE),
);
type LeaseParams = { id: string; owner: string; at: string; expiresAt: string };
const leaseUpdate = (db: Kysely<Database>, p: LeaseParams) =>
  db
    .updateTable("runs")
    .set((eb) => ({
      lease_gen: eb("lease_gen", "+", 1),
      attempt: eb("attempt", "+", 1),
      lease_owner: p.owner,
      lease_expires_at: p.expiresAt,
      status: "running",
      started_at: eb.fn.coalesce("started_at", eb.val(p.at)),
      turn_started_at: eb
        .case()
        .when(eb.or([eb("status", "=", "queued"), eb("turn_started_at", "is", null)]))
        .then(p.at)
        .else(eb.ref("turn_started_at"))
        .end(),
      updated_at: p.at,
      // Events are appended without touching the run's row: the turn goes on after the last one.
      next_seq: nextSeqOf(p.id),
    }))
    .where("id", "=", p.id)
    .where("status", "in", ACTIVE)
    .where((eb) => eb.or([eb("lease_expires_at", "is", null), eb("lease_expires_at", "<", p.at)]));
// PostgreSQL answers with the leased row in the same round trip.
const leaseRunReturning = preparedQuery<LeaseParams, RunRow>((db, p) => leaseUpdate(db, p).returningAll());
// SQLite's RETURNING builds a temporary table on every execution: there it cost three times the
// update itself, more than reading the row back in the same transaction (decision 0029).
const leaseRun = preparedQuery<LeaseParams>((db, p) => leaseUpdate(db, p));
/** An event the service records itself (cancel, expiry, timeout): its seq comes from the run. */
export type ServiceEvent = Omit<RunEventInput, "seq">;

/** Appends `event` after the run's last stored event (a worker's events do not move next_seq as they are appended). */
async function appendServiceEvent(tx: Transaction<Database>, id: string, event: ServiceEvent): Promise<RunEventRow> {
  const run = await tx
    .updateTable("runs")
    .set({ next_seq: sql<number>`${nextSeqOf(id)} + 1` })
    .where("id", "=", id)
    .returning(["next_seq"])
    .executeTakeFirstOrThrow();
  const row: RunEventRow = { run_id: id, seq: run.next_seq - 1, ...event };
  await tx.insertInto("run_events").values(row).execute();
  return row;
}

/** The seq after a run's last stored event. */
const nextSeqOf = (id: string) => sql<number>`(select coalesce(max(seq), 0) + 1 from run_events where run_id = ${id})`;
/**
 * The fence where the transaction does not hold the write lock from its start (PostgreSQL): the
 * run's row locked as an update of it would lock it (FOR NO KEY UPDATE), if its lease still holds.
 * A lease taken over meanwhile waits for the commit; one taken over before is seen (READ COMMITTED
 * checks the newest version of a row it waited for). Unlike an update, the lock writes no new
 * version of the row (and none of its indexes, nor their WAL).
 */
const lockLeased = preparedQuery<{ id: string; leaseGen: number }, { id: string }>((db: Kysely<Database>, p) =>
  db.selectFrom("runs").select("id").where("id", "=", p.id).where("lease_gen", "=", p.leaseGen).forNoKeyUpdate(),
);
/** The fence where the transaction holds the write lock from its start (SQLite): a read. */
const leaseGenOf = preparedQuery<{ id: string }, { lease_gen: number }>((db: Kysely<Database>, p) =>
  db.selectFrom("runs").select("lease_gen").where("id", "=", p.id),
);

/**
 * The leases of several runs checked at once (PostgreSQL: the batch fence of write-batcher.ts),
 * locking their rows as `lockLeased` does, in the order of their ids; the ones that hold.
 */
export async function fenceLeases(tx: Kysely<Database>, fences: Fence[]): Promise<Fence[]> {
  const { rows } = await sql<{ id: string; lease_gen: number }>`select runs.id, runs.lease_gen from runs
    join unnest(${fences.map((f) => f.runId)}::text[], ${fences.map((f) => f.leaseGen)}::integer[]) as f (id, gen)
      on runs.id = f.id and runs.lease_gen = f.gen
    order by runs.id for no key update of runs`.execute(tx);
  return rows.map((row) => ({ runId: row.id, leaseGen: row.lease_gen }));
}

/** The leases of `fenced_ids` / `fenced_gens` hold: their runs' rows locked as `fenceLeases` locks them. */
const leasesHold: UnnestGuard = {
  ctes: (v) => sql`fenced as materialized (select runs.id from runs
    join unnest(${v.fenced_ids}::text[], ${v.fenced_gens}::integer[]) as f (id, gen)
      on runs.id = f.id and runs.lease_gen = f.gen
    order by runs.id for no key update of runs),
    guard as (select count(*) = cardinality(${v.fenced_ids}::text[]) as held from fenced)`,
};

/**
 * Rows of several tables inserted in one autocommitted statement only if every lease of `fences`
 * holds (write-batcher.ts, `insertFenced`): true when they held and the rows are committed.
 */
export function insertFenced(
  db: Kysely<Database>,
  fences: Fence[],
  parts: [target: UnnestTarget<unknown>, rows: object[]][],
): Promise<boolean> {
  const values = { fenced_ids: fences.map((f) => f.runId), fenced_gens: fences.map((f) => f.leaseGen) };
  return insertUnnestedIf(db, leasesHold, values, parts);
}

/**
 * Whether the run is still leased under `leaseGen`, checked once per write scope (a batch): a
 * worker's writes go through only while it holds the run.
 */
export async function stillLeased(
  tx: Kysely<Database>,
  scope: WriteScope,
  holdsWriteLock: boolean,
  runId: string,
  leaseGen: number,
): Promise<boolean> {
  const key = leaseScopeKey(runId);
  if (scope.get(key) === leaseGen) return true;
  const held = holdsWriteLock
    ? (await leaseGenOf(tx, { id: runId })).rows[0]?.lease_gen === leaseGen
    : (await lockLeased(tx, { id: runId, leaseGen })).rows.length === 1;
  if (held) scope.set(key, leaseGen);
  return held;
}

const eventValues = (e: Record<string, unknown>, i: number) => ({
  run_id: e[`run_id${i}`] as string,
  seq: e[`seq${i}`] as number,
  type: e[`type${i}`] as string,
  node_id: e[`node_id${i}`] as string | null,
  superstep: e[`superstep${i}`] as number | null,
  ts: e[`ts${i}`] as string,
  data: e[`data${i}`] as string,
});
// One statement for up to this many events (shapes by count, compiled on first use).
const EVENTS_PER_STATEMENT = 8;
const insertEventsOf = Array.from({ length: EVENTS_PER_STATEMENT }, (_, n) =>
  preparedQuery((db: Kysely<Database>, e: Record<string, unknown>) =>
    db
      .insertInto("run_events")
      .values(Array.from({ length: n + 1 }, (_, i) => eventValues(e, i)))
      .onConflict((oc) => oc.columns(["run_id", "seq"]).doNothing()),
  ),
);

/** A pool batch's events of all its runs, in one statement (write-batcher.ts, `stage`). */
const stagedEvents: StagedInsert<RunEventRow> = {
  insert: unnestInsert<RunEventRow>(
    "run_events",
    [
      ["run_id", "text"],
      ["seq", "integer"],
      ["type", "text"],
      ["node_id", "text"],
      ["superstep", "integer"],
      ["ts", "text"],
      ["data", "text"],
    ],
    "on conflict (run_id, seq) do nothing",
  ),
};

/** Inserts events (an event already stored under its seq is kept). */
async function insertEvents(tx: Kysely<Database>, runId: string, events: RunEventInput[]): Promise<void> {
  if (
    stage(
      tx,
      stagedEvents,
      events.map((event) => ({ run_id: runId, ...event })),
    )
  )
    return;
  for (let start = 0; start < events.length; start += EVENTS_PER_STATEMENT) {
    const chunk = events.slice(start, start + EVENTS_PER_STATEMENT);
    const values: Record<string, unknown> = {};
    chunk.forEach((event, i) => {
      values[`run_id${i}`] = runId;
      values[`seq${i}`] = event.seq;
      values[`type${i}`] = event.type;
      values[`node_id${i}`] = event.node_id;
      values[`superstep${i}`] = event.superstep;
      values[`ts${i}`] = event.ts;
      values[`data${i}`] = event.data;
    });
    await (insertEventsOf[chunk.length - 1] as (typeof insertEventsOf)[number])(tx, values);
  }
}

type EndValues = Pick<
  RunRow,
  "status" | "state" | "output" | "error" | "waiting" | "expires_at" | "metrics" | "finished_at" | "updated_at"
> & { id: string; leaseGen: number; nextSeq: number };
const endSet = (p: EndValues) => ({
  status: p.status,
  state: p.state,
  output: p.output,
  error: p.error,
  waiting: p.waiting,
  expires_at: p.expires_at,
  metrics: p.metrics,
  pending_resume: null,
  lease_owner: null,
  lease_expires_at: null,
  finished_at: p.finished_at,
  updated_at: p.updated_at,
});
const endRun = preparedQuery((db: Kysely<Database>, p: EndValues) =>
  db.updateTable("runs").set(endSet(p)).where("id", "=", p.id).where("lease_gen", "=", p.leaseGen),
);
const endRunWithEvent = preparedQuery((db: Kysely<Database>, p: EndValues) =>
  db
    .updateTable("runs")
    .set({ ...endSet(p), next_seq: p.nextSeq })
    .where("id", "=", p.id)
    .where("lease_gen", "=", p.leaseGen),
);

export class RunRepository {
  readonly #db: Kysely<Database>;
  readonly #settled: () => Promise<void>;
  readonly #writes: WriteBatcher;

  /**
   * `settled` resolves once everything read or written so far is on disk (DatabaseHandle.settled);
   * `writes` applies the writes of a run's lifecycle (shared transactions: write-batcher.ts).
   */
  constructor(db: Kysely<Database>, options: { settled?: () => Promise<void>; writes?: WriteBatcher } = {}) {
    this.#db = db;
    this.#settled = options.settled ?? (async () => {});
    this.#writes = options.writes ?? new WriteBatcher(db, { batching: "none" });
  }

  /** Resolves once everything read so far is on disk, so it may be shown. */
  settled(): Promise<void> {
    return this.#settled();
  }

  /**
   * Inserts a queued run; with an idempotency key already used, returns the earlier run instead.
   * `visible` is told once every later read sees the new run (before it is on disk). `alongside`
   * writes what the run needs before a worker may take it (a fork's first checkpoint) in the same
   * transaction: the run and it are both there or neither.
   */
  async create(
    input: NewRun,
    options: { visible?: () => void; alongside?: (tx: Kysely<Database>, runId: string) => Promise<void> } = {},
  ): Promise<{ run: RunRow; created: boolean }> {
    const now = nowIso();
    const row: RunRow = {
      // Ordered by time (UUIDv7): the run's id leads the keys of its events, checkpoints and task
      // writes, so the rows of runs in flight go in at the right edge of those indexes, a few pages
      // per commit, instead of a random page each (decision 0035).
      id: randomUUIDv7(),
      owner_id: input.ownerId,
      workflow_id: input.workflowId,
      workflow_version: input.workflowVersion,
      content_hash: input.contentHash,
      document: input.document,
      trigger: input.trigger,
      mode: input.mode,
      status: "queued",
      input: input.input,
      context: input.context,
      state: null,
      output: null,
      error: null,
      waiting: null,
      pending_resume: null,
      expires_at: null,
      metrics: null,
      lease_gen: 0,
      lease_owner: null,
      lease_expires_at: null,
      turn_started_at: null,
      attempt: 0,
      next_seq: 1,
      idempotency_key: input.idempotencyKey,
      callback_url: input.callbackUrl,
      api_key_id: input.apiKeyId,
      parent_run_id: input.fork?.parentRunId ?? null,
      parent_checkpoint_id: input.fork?.parentCheckpointId ?? null,
      fork_rerun: input.fork?.rerun ?? null,
      pins: input.pins ?? null,
      schedule_id: input.scheduleId ?? null,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    try {
      // At once: someone is waiting for the answer (a trigger's 202).
      const { alongside } = options;
      await this.#writes.run(
        async (tx) => {
          await insertRun(tx, row);
          await alongside?.(tx, row.id);
        },
        undefined,
        { now: true, statement: alongside === undefined, committed: options.visible },
      );
      return { run: row, created: true };
    } catch (error) {
      if (!isUniqueViolation(error) || input.idempotencyKey === null) throw error;
      const existing = await this.#db
        .selectFrom("runs")
        .selectAll()
        .where("owner_id", "=", input.ownerId)
        .where("workflow_id", "=", input.workflowId)
        .where("idempotency_key", "=", input.idempotencyKey)
        .executeTakeFirstOrThrow();
      return { run: existing, created: false };
    }
  }

  /** The run an earlier trigger with this idempotency key created, if any. */
  findByIdempotencyKey(ownerId: string, workflowId: string, key: string): Promise<RunRow | undefined> {
    return this.#db
      .selectFrom("runs")
      .selectAll()
      .where("owner_id", "=", ownerId)
      .where("workflow_id", "=", workflowId)
      .where("idempotency_key", "=", key)
      .executeTakeFirst();
  }

  /** How many of a user's runs are queued or running. */
  async countActive(ownerId: string): Promise<number> {
    const { rows } = await countActive(this.#db, { ownerId });
    return Number(rows[0]?.n ?? 0);
  }

  async findById(id: string): Promise<RunRow | undefined> {
    return (await selectRun(this.#db, { id })).rows[0];
  }

  /**
   * A page of the owner's runs, newest first, with the name of their workflow (null for a run of
   * an unsaved document). Every filter narrows the rows the owner's index (owner_id, created_at) reads.
   */
  list(ownerId: string, filter: RunFilter, limit: number, offset: number) {
    let query = this.#db
      .selectFrom("runs")
      .leftJoin("workflows", "workflows.id", "runs.workflow_id")
      .select([
        "runs.id",
        "runs.workflow_id",
        "workflows.name as workflow_name",
        "runs.workflow_version",
        "runs.trigger",
        "runs.mode",
        "runs.status",
        "runs.error",
        "runs.metrics",
        "runs.parent_run_id",
        "runs.parent_checkpoint_id",
        "runs.pins",
        "runs.schedule_id",
        "runs.created_at",
        "runs.started_at",
        "runs.finished_at",
      ])
      .where("runs.owner_id", "=", ownerId);
    if (filter.workflowId) query = query.where("runs.workflow_id", "=", filter.workflowId);
    if (filter.status) query = query.where("runs.status", "=", filter.status);
    if (filter.trigger) query = query.where("runs.trigger", "=", filter.trigger);
    if (filter.scheduleId) query = query.where("runs.schedule_id", "=", filter.scheduleId);
    if (filter.from) query = query.where("runs.created_at", ">=", filter.from);
    if (filter.to) query = query.where("runs.created_at", "<=", filter.to);
    // The part holds only hex digits and dashes (checked by the route): no LIKE wildcards.
    const part = filter.idPart;
    if (part)
      query = query.where((eb) => eb.or([eb("runs.id", "like", `${part}%`), eb("runs.id", "like", `%${part}`)]));
    return query.orderBy("runs.created_at", "desc").orderBy("runs.id").limit(limit).offset(offset).execute();
  }

  /**
   * Takes a queued run, or a running one whose lease has expired (its worker died), for a worker:
   * lease_gen + 1 fences off any earlier holder. A run whose lease is still live is left to its
   * holder (undefined). Taking a queued run starts a new turn; taking over a running one goes on
   * with the turn it was in, so a crash does not reset the run timeout.
   *
   * The lease's clock starts when the write is made (`now`, unless given, is read inside the
   * transaction): a lease that waited for its connection (a busy pool, a run thread's first
   * connection) does not start with part of its TTL already spent, which could let it expire
   * before its holder's first renewal and have a live run taken over.
   */
  async lease(id: string, owner: string, ttlMs: number, now?: Date): Promise<RunRow | undefined> {
    // Answered once committed: whatever the turn then lets out of the server waits for the disk.
    return this.#writes.run(
      async (tx) => {
        const start = now ?? new Date();
        const at = start.toISOString();
        const expiresAt = new Date(start.getTime() + ttlMs).toISOString();
        const params = { id, owner, at, expiresAt };
        if (!this.#writes.holdsWriteLock) return (await leaseRunReturning(tx, params)).rows[0];
        const leased = await leaseRun(tx, params);
        return leased.numAffectedRows ? (await selectRun(tx, { id })).rows[0] : undefined;
      },
      id,
      { acknowledge: "commit" },
    );
  }

  /** Extends a lease while its holder still has it; false when another worker (or a cancel) took the run. */
  async renewLease(id: string, leaseGen: number, ttlMs: number, now = new Date()): Promise<boolean> {
    const result = await this.#db
      .updateTable("runs")
      .set({ lease_expires_at: new Date(now.getTime() + ttlMs).toISOString() })
      .where("id", "=", id)
      .where("lease_gen", "=", leaseGen)
      .where("status", "=", "running")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Appends events while the lease holds; false when the lease is gone (nothing written). Answered
   * once on disk, or with `acknowledge: "commit"` once committed, for a caller that hands the
   * events on only after `settled()` (the run executor's event recorder).
   */
  async appendEvents(
    id: string,
    leaseGen: number,
    events: RunEventInput[],
    acknowledge: "disk" | "commit" = "disk",
  ): Promise<boolean> {
    if (events.length === 0) return true;
    return this.#writes.run(
      async (tx, scope) => {
        if (!(await stillLeased(tx, scope, this.#writes.holdsWriteLock, id, leaseGen))) return false;
        await insertEvents(tx, id, events);
        return true;
      },
      id,
      { fence: { runId: id, leaseGen }, stages: true, acknowledge },
    );
  }

  /**
   * Records how a worker's turn ended, while the lease holds; false when the lease is gone. A
   * final ending queues the run's callback in the same transaction. The run's result ledger is
   * kept, as its checkpoints are: a fork of the run reuses the results it finished (decision
   * 0019). Answered once committed: the caller announces the ending only after `settled()`.
   */
  async end(id: string, leaseGen: number, ending: RunEnding): Promise<boolean> {
    const now = nowIso();
    const values: EndValues = {
      id,
      leaseGen,
      status: ending.status,
      state: ending.state,
      output: ending.output,
      error: ending.error,
      waiting: ending.waiting,
      expires_at: ending.expiresAt,
      metrics: ending.metrics,
      finished_at: ending.finished ? now : null,
      updated_at: now,
      nextSeq: ending.event ? ending.event.seq + 1 : 0,
    };
    return this.#writes.run(
      async (tx) => {
        const result = await (ending.event ? endRunWithEvent : endRun)(tx, values);
        const ended = result.numAffectedRows === 1n;
        if (ended && ending.event) await insertEvents(tx, id, [ending.event]);
        if (ended && ending.finished && ending.callback !== false) await queueCallback(tx, id, now);
        return ended;
      },
      id,
      { acknowledge: "commit" },
    );
  }

  /**
   * Moves a run from one status to another only if it is still in `from`; used for resume,
   * continue, cancel, expiry and timeout. Bumps lease_gen so that no worker still holding it can
   * write. `event` (the run_finished of a cancel, an expiry or a timeout) is appended in the same
   * transaction, after the run's last stored event: the status and its event are both kept or
   * neither, whatever fails or crashes in between.
   */
  async transition(
    id: string,
    from: string[],
    to: string,
    changes: { pendingResume?: string | null; error?: string | null; event?: ServiceEvent } = {},
  ) {
    const now = nowIso();
    const terminal = TERMINAL.includes(to);
    return this.#db.transaction().execute(async (tx) => {
      const moved = await tx
        .updateTable("runs")
        .set((eb) => ({
          status: to,
          lease_gen: eb("lease_gen", "+", 1),
          lease_owner: null,
          lease_expires_at: null,
          updated_at: now,
          ...(changes.pendingResume !== undefined ? { pending_resume: changes.pendingResume } : {}),
          ...(changes.error !== undefined ? { error: changes.error } : {}),
          ...(terminal ? { finished_at: now, waiting: null, expires_at: null } : {}),
        }))
        .where("id", "=", id)
        .where("status", "in", from)
        .returningAll()
        .executeTakeFirst();
      if (!moved) return undefined;
      if (changes.event) moved.next_seq = (await appendServiceEvent(tx, id, changes.event)).seq + 1;
      if (terminal) await queueCallback(tx, id, now);
      return moved;
    });
  }

  listEvents(id: string, afterSeq: number, limit: number): Promise<RunEventRow[]> {
    return this.#db
      .selectFrom("run_events")
      .selectAll()
      .where("run_id", "=", id)
      .where("seq", ">", afterSeq)
      .orderBy("seq")
      .limit(limit)
      .execute();
  }

  /**
   * Runs a worker may take now: queued ones (with `queuedBefore`, only those queued before it, i.e.
   * left behind by a process that stopped), and running ones whose lease has expired (their worker
   * died). A run whose lease is live belongs to the process holding it.
   */
  findTakeable(now: string, options: { queuedBefore?: string; limit?: number } = {}) {
    const { queuedBefore, limit = 10_000 } = options;
    // The first condition is implied by the second; said outright, it lets SQLite read the index
    // of active runs instead of every run (it does not match an OR's branches to partial indexes;
    // PostgreSQL may, with the indexes of queued and of running runs).
    return this.#db
      .selectFrom("runs")
      .select(["id", "owner_id", "lease_gen"])
      .where(STATUS_IS_ACTIVE)
      .where((eb) =>
        eb.or([
          queuedBefore === undefined
            ? statusIs("queued")
            : eb.and([statusIs("queued"), eb("updated_at", "<", queuedBefore)]),
          eb.and([statusIs("running"), eb.or([eb("lease_expires_at", "is", null), eb("lease_expires_at", "<", now)])]),
        ]),
      )
      .orderBy("created_at")
      .limit(limit)
      .execute();
  }

  /** Runs still running in a turn that started before `turnStartedBefore` (stuck or abandoned). */
  findOverTime(turnStartedBefore: string): Promise<Pick<RunRow, "id">[]> {
    return this.#db
      .selectFrom("runs")
      .select("id")
      .where(statusIs("running"))
      .where("turn_started_at", "is not", null)
      .where("turn_started_at", "<", turnStartedBefore)
      .execute();
  }

  findOverdueWaits(now: string): Promise<Pick<RunRow, "id">[]> {
    return this.#db
      .selectFrom("runs")
      .select("id")
      .where(statusIs("waiting"))
      .where("expires_at", "is not", null)
      .where("expires_at", "<", now)
      .execute();
  }
}
