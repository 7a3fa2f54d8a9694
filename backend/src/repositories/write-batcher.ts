// Writes of many runs in one transaction. On the embedded database every transaction is one
// COMMIT of the single connection and one more set of WAL pages: a run's superstep (events,
// the task writes, the checkpoint) and the other runs' writes that arrive in the same turn of the
// event loop are committed together, and each caller is answered once that commit is on disk
// (node-sqlite.dialect.ts).
//
// Each write is still all or nothing and keeps its order. The writes of one group (one run, by its
// key) in a batch are applied in arrival order and share a scope, so a run's lease is checked once
// per batch, not per write. When a write fails, the batch is applied again with each group behind
// a savepoint of its own: that group's writes are undone and each of its callers is told, while
// the other groups commit.
//
// On PostgreSQL (a pool of connections) batches are formed the same way, and several commit at
// once on connections of their own, but a group is in one batch in flight at a time: its next
// writes wait for that batch's commit, so they commit in order. A batch takes its runs' rows in
// the order of their ids (its groups in that order, and their lease checks through the primary
// key in that order), so two transactions (of this batcher or another) never wait for each
// other's run rows the other way round: they cannot deadlock. A run's superstep (its events, task
// writes and checkpoint, each fenced by the lease) is one transaction where it was three, the
// runs that write in the same turn share it, and their leases are checked in one statement
// (`fenceAll`). There every statement is a round trip, so a batch has no savepoint unless a write
// fails, and the rows its runs insert (events, task writes, checkpoints) are staged and inserted
// at its end in one statement (`stage`, decisions 0032 and 0036). A batch of writes that do
// nothing but stage rows (a superstep's events, task writes and checkpoint) is not even a
// transaction: its rows go in one autocommitted statement that checks the runs' leases itself and
// inserts nothing unless they all hold (`stages`, `insertFenced`; decision 0038).
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  type Transaction,
} from "kysely";
import type { Database } from "../models/database.model.js";
import { type DirectConnection, runDirectly } from "./prepared-query.js";
import { insertUnnested, type UnnestInsert, type UnnestTarget } from "./unnest-insert.js";

/** What the writes of one group share within one transaction (e.g. a lease already checked). */
export type WriteScope = Map<string, unknown>;
export type Write<T> = (tx: Transaction<Database>, scope: WriteScope) => Promise<T>;

/** The lease a write is fenced by: it may commit only while the run is leased under `leaseGen`. */
export interface Fence {
  runId: string;
  leaseGen: number;
}

/** Where a group's scope remembers that its run's lease held in this transaction. */
export const leaseScopeKey = (runId: string): string => `lease:${runId}`;

/**
 * Checks the leases of several runs in one statement, holding each run's row until the commit as
 * a single check would; returns those that hold.
 */
export type FenceAll = (tx: Transaction<Database>, fences: Fence[]) => Promise<Fence[]>;

/**
 * Inserts staged rows of several tables in one autocommitted statement that checks the leases
 * `fences` first, locking their runs' rows as `FenceAll` does, and inserts nothing unless every
 * one holds; true when they all held (the rows are committed), false when none was inserted.
 */
export type InsertFenced = (
  db: Kysely<Database>,
  fences: Fence[],
  parts: [target: UnnestTarget<unknown>, rows: object[]][],
) => Promise<boolean>;

interface Queued {
  write: Write<unknown>;
  /** The lease the write checks (see `stillLeased`), to be checked with the batch's others. */
  fence: Fence | undefined;
  /** Answered once on disk (true), or as soon as committed (false: see `run`). */
  untilDisk: boolean;
  /** Someone waits for it (a trigger's answer): the batch goes on disk at once, not in the next sync. */
  urgent: boolean;
  /** Once its lease is known to hold, the write runs no statement: it only stages rows (see `run`). */
  stages: boolean;
  /** Told once the write is committed (visible to every later read), before it is on disk. */
  committed: (() => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

// A batch larger than this is split: one transaction never holds the connection (and, since its
// writes run as one stretch of microtasks, the event loop) for long.
const BATCH_LIMIT = 64;
const SAVEPOINT = CompiledQuery.raw("savepoint batched_write");
const RELEASE = CompiledQuery.raw("release batched_write");
const ROLLBACK_TO = CompiledQuery.raw("rollback to batched_write");
const SAVEPOINT_ALL = CompiledQuery.raw("savepoint batched_writes");
const RELEASE_ALL = CompiledQuery.raw("release batched_writes");
const ROLLBACK_TO_ALL = CompiledQuery.raw("rollback to batched_writes");

/** Groups named by a run's id in the order of the ids; writes of no group after them. */
const byRunId = ([a]: [unknown, Queued[]], [b]: [unknown, Queued[]]): number =>
  typeof a === "string" ? (typeof b === "string" ? (a < b ? -1 : a > b ? 1 : 0) : -1) : typeof b === "string" ? 1 : 0;

/** The lease a group's writes check: the first one's that checks one. */
const fenceOf = (writes: Queued[]): Fence | undefined => writes.find((queued) => queued.fence)?.fence;

/** By transaction: the runs whose leases its batch found holding, in one statement at its start. */
const fencedNow = new WeakMap<Transaction<Database>, Set<string>>();

/**
 * Rows of one kind (one table and conflict rule) that a pool batch's writes leave for the batch's
 * end: a superstep of 5 runs inserts its events, its task writes and its checkpoints in one
 * statement, not 15 round trips.
 */
export interface StagedInsert<R> {
  /** Inserts any number of rows in one statement, in their order. */
  insert: (tx: Kysely<Database>, rows: R[]) => Promise<unknown>;
  /**
   * For an upsert: rows with the same key keep only the last (one statement cannot change a row
   * twice), which is what applying them in turn would leave.
   */
  key?: (row: R) => string;
}

/** By transaction: the rows its writes left for its end, by kind, in the order they came. */
const staged = new WeakMap<Transaction<Database>, Map<StagedInsert<never>, unknown[]>>();

/**
 * Leaves `rows` to be inserted with the batch's other rows of `kind` once its writes are applied,
 * before the commit, when `tx` is a pool batch's first try; otherwise (false) the caller inserts
 * them now. Only for rows nothing in the batch reads back; a write that must see them (or whose
 * statement must follow them) calls `flushStaged` first.
 */
export function stage<R>(tx: Kysely<Database>, kind: StagedInsert<R>, rows: R[]): boolean {
  const kinds = staged.get(tx as Transaction<Database>);
  if (!kinds) return false;
  if (rows.length === 0) return true;
  const list = kinds.get(kind as StagedInsert<never>);
  if (list) for (const row of rows) list.push(row);
  else kinds.set(kind as StagedInsert<never>, [...rows]);
  return true;
}

/**
 * Inserts the rows left in `tx` so far (see `stage`): the kinds that insert by unnesting arrays
 * (`unnestInsert`) all in one statement, any other kind in one of its own.
 */
export async function flushStaged(tx: Kysely<Database>): Promise<void> {
  const kinds = staged.get(tx as Transaction<Database>);
  if (!kinds || kinds.size === 0) return;
  const { together, alone } = takeStaged(kinds);
  for (const [insert, rows] of alone) await insert(tx, rows);
  if (together.length > 0) await insertUnnested(tx, together);
}

/** The rows staged so far (taken out): those of unnesting kinds by table, the others with their insert. */
function takeStaged(kinds: Map<StagedInsert<never>, unknown[]>) {
  const all = [...kinds];
  kinds.clear();
  const together: [UnnestTarget<unknown>, object[]][] = [];
  const alone: [StagedInsert<unknown>["insert"], unknown[]][] = [];
  for (const [kind, rows] of all) {
    const { key, insert } = kind as StagedInsert<unknown>;
    const unique = key ? [...new Map(rows.map((row) => [key(row), row])).values()] : rows;
    if ("target" in insert) together.push([(insert as UnnestInsert<unknown>).target, unique as object[]]);
    else alone.push([insert, unique]);
  }
  return { together, alone };
}

/** Answers a batch's writes, with what each group's writes returned or why the group failed. */
function answerBatch(batch: Queued[][], outcomes: Outcome[], untilDisk: boolean): void {
  batch.forEach((writes, i) => {
    const outcome = outcomes[i] as Outcome;
    for (const [j, queued] of writes.entries()) {
      if (!untilDisk && outcome.ok) queued.committed?.();
      if (queued.untilDisk !== untilDisk) continue;
      if (outcome.ok) queued.resolve(outcome.values[j]);
      else queued.reject(outcome.error);
    }
  });
}

/** Thrown where a staging-only write tries to run a statement: its batch is applied the usual way. */
class StatementRefused extends Error {}

/** A driver with no connection: what staging-only writes get, so that none can run a statement. */
class RefusingDriver implements Driver {
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    throw new StatementRefused("a write that stages rows ran a statement");
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

const refusing = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new RefusingDriver(),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  },
});

type Outcome = { ok: true; values: unknown[] } | { ok: false; error: unknown };

/** Runs a savepoint statement, at once on the embedded database's connection. */
function savepoints(tx: Transaction<Database>, connection: DirectConnection | null) {
  return async (query: CompiledQuery) => {
    if (connection) connection.run(query.sql, []);
    else await tx.executeQuery(query);
  };
}

/**
 * Several groups in one transaction on the embedded database. Writes rarely fail: all groups at
 * once behind one savepoint first; if one fails, again each behind a savepoint of its own
 * (`applyEachAlone`).
 */
async function applyGroups(
  tx: Transaction<Database>,
  batch: Queued[][],
  connection: DirectConnection | null,
): Promise<Outcome[]> {
  const exec = savepoints(tx, connection);
  await exec(SAVEPOINT_ALL);
  try {
    const out = await applyAll(tx, batch);
    await exec(RELEASE_ALL);
    return out;
  } catch {
    await exec(ROLLBACK_TO_ALL);
    await exec(RELEASE_ALL);
  }
  return applyEachAlone(tx, batch, connection);
}

/** Every group, none expected to fail: the first failure fails them all. */
async function applyAll(tx: Transaction<Database>, batch: Queued[][]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const writes of batch) out.push({ ok: true, values: await applyGroup(tx, writes) });
  return out;
}

/** Each group behind a savepoint of its own: only a failing group is undone, the others commit. */
async function applyEachAlone(
  tx: Transaction<Database>,
  batch: Queued[][],
  connection: DirectConnection | null,
): Promise<Outcome[]> {
  const exec = savepoints(tx, connection);
  const out: Outcome[] = [];
  for (const writes of batch) {
    await exec(SAVEPOINT);
    try {
      out.push({ ok: true, values: await applyGroup(tx, writes) });
      await exec(RELEASE);
    } catch (error) {
      await exec(ROLLBACK_TO);
      await exec(RELEASE);
      out.push({ ok: false, error });
    }
  }
  return out;
}

/** A group's writes in order, sharing a scope (fresh, or with the leases found holding). */
async function applyGroup(tx: Transaction<Database>, writes: Queued[]): Promise<unknown[]> {
  const scope: WriteScope = new Map();
  // Only where the batch checked its runs' leases together (a pool): nothing to look up otherwise.
  const held = fencedNow.get(tx);
  const fence = held && fenceOf(writes);
  if (fence && held.has(fence.runId)) scope.set(leaseScopeKey(fence.runId), fence.leaseGen);
  const values: unknown[] = [];
  for (const queued of writes) values.push(await queued.write(tx, scope));
  return values;
}

export interface WriteBatcherOptions {
  /**
   * "connection": shared transactions on one connection (the embedded database), which runs them
   * in turn; "pool": shared transactions on a pool (PostgreSQL), several at once, a group in one
   * at a time; "none": each write its own transaction.
   */
  batching: "connection" | "pool" | "none";
  /** The connection of the transaction open now, to run prepared statements on directly. */
  openTransaction?: () => DirectConnection | null;
  /**
   * On a pool: the leases of a batch's runs checked in one statement at its start, instead of one
   * per run (a round trip each on PostgreSQL).
   */
  fenceAll?: FenceAll;
  /**
   * On a pool: a batch whose writes all only stage rows (`stages`) is applied as one autocommitted
   * statement that checks their leases, without BEGIN, a lease check and COMMIT: one round trip
   * where there were four.
   */
  insertFenced?: InsertFenced;
}

// At most this many batches in flight on a pool: the run pool's other connections stay free for
// the runs' reads (a checkpoint loaded at a turn's start).
const POOL_BATCHES_IN_FLIGHT = 4;

export class WriteBatcher {
  readonly #db: Kysely<Database>;
  readonly #batching: WriteBatcherOptions["batching"];
  readonly #openTransaction: (() => DirectConnection | null) | undefined;
  readonly #fenceAll: FenceAll | undefined;
  readonly #insertFenced: InsertFenced | undefined;
  readonly #holdsWriteLock: boolean;
  /** Queued writes by group, in order of each group's first write. */
  #groups = new Map<unknown, Queued[]>();
  #queued = 0;
  #scheduled = false;
  /** On a pool: the groups of the batches in flight, and how many batches those are. */
  readonly #inFlight = new Set<unknown>();
  #batchesInFlight = 0;
  /** Transactions committed (tests and benchmarks count them). */
  transactions = 0;

  constructor(db: Kysely<Database>, options: WriteBatcherOptions) {
    this.#db = db;
    this.#batching = options.batching;
    this.#openTransaction = options.openTransaction;
    this.#fenceAll = options.batching === "pool" ? options.fenceAll : undefined;
    this.#insertFenced = options.batching === "pool" ? options.insertFenced : undefined;
    // SQLite's transactions begin IMMEDIATE (node-sqlite.dialect.ts), batched or not.
    this.#holdsWriteLock =
      options.batching === "connection" ||
      (options.batching === "none" && db.getExecutor().adapter instanceof SqliteAdapter);
  }

  /**
   * Whether a write runs holding the database's write lock from its start (SQLite's BEGIN
   * IMMEDIATE): then reading a row is as good a fence as updating it, since nobody else can
   * change it before the commit. On PostgreSQL only a row lock (or an UPDATE) fences.
   */
  get holdsWriteLock(): boolean {
    return this.#holdsWriteLock;
  }

  /**
   * Applies `write` in a transaction (shared with other writes, unless batching is "none").
   * Writes with the same `group` (a run's id) share a scope in a batch. Answered once the write is
   * on disk; with `acknowledge: "commit"`, as soon as it is committed (visible, and kept if the
   * process dies): for a write whose caller makes sure that nothing depending on it leaves the
   * server before it is on disk (a run's checkpoints: see docs/en/runs.md, "Durability"). With
   * `now` (someone waits for it), on a pool it is applied at once in a transaction of its own
   * instead of waiting for the next batch, and with `statement` (the write is a single statement)
   * as a transaction by itself, without BEGIN and COMMIT: two round trips fewer for a trigger
   * waiting for its answer. On the embedded database it goes in this turn's batch, which is put on
   * disk at once instead of in the next shared sync. With `stages` (only with `fence`, or no lease
   * to check), the write promises that, once its lease is known to hold, it only stages rows
   * (`stage`) and runs no statement; on a pool such writes may then be applied without a
   * transaction (`insertFenced`). One that runs a statement all the same is applied the usual way.
   */
  run<T>(
    write: Write<T>,
    group?: string,
    options: {
      acknowledge?: "disk" | "commit";
      now?: boolean;
      statement?: boolean;
      committed?: () => void;
      /** The lease `write` checks first (with `stillLeased`), when it is a run's; `group` is that run's id. */
      fence?: Fence;
      stages?: boolean;
    } = {},
  ): Promise<T> {
    if (options.now && options.statement && this.#batching === "pool") return this.#statement(write, options.committed);
    // Without batching, or on a pool for a caller that waits (a trigger being answered): a
    // transaction of its own, at once. On the embedded database such a write joins this turn's
    // batch (the triggers that arrive together share one commit) and puts it on disk at once.
    if (this.#batching === "none" || (options.now && this.#batching === "pool"))
      return this.#alone(write, options.committed, options.now === true);
    return new Promise<T>((resolve, reject) => {
      const key = group ?? Symbol();
      const queued: Queued = {
        write,
        fence: options.fence,
        untilDisk: options.acknowledge !== "commit",
        urgent: options.now === true,
        stages: options.stages === true,
        committed: options.committed,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      const writes = this.#groups.get(key);
      if (writes) writes.push(queued);
      else this.#groups.set(key, [queued]);
      this.#queued++;
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#queued === 0) return;
    this.#scheduled = true;
    // After the current turn: what the runs write in it (a task's writes and the checkpoint that
    // follows, events) joins the same batch.
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#batching === "pool") this.#flushOnPool();
      else {
        void this.#flush(this.#take().map(([, writes]) => writes));
        this.#schedule();
      }
    });
  }

  /** Batches of the groups not in flight, while the pool has room; again when one commits. */
  #flushOnPool(): void {
    while (this.#batchesInFlight < POOL_BATCHES_IN_FLIGHT) {
      const taken = this.#take((key) => !this.#inFlight.has(key));
      if (taken.length === 0) return;
      // Each batch fences its runs' rows in the order of their ids, as every other one does: two
      // transactions never wait for each other's rows the other way round.
      taken.sort(byRunId);
      // The groups that only stage rows make a batch of their own, without a transaction, when
      // there is room for two batches.
      const staging: [unknown, Queued[]][] = [];
      const others: [unknown, Queued[]][] = [];
      for (const group of taken)
        (this.#insertFenced && group[1].every((queued) => queued.stages) ? staging : others).push(group);
      if (others.length === 0) this.#launch(staging, (batch) => this.#flushStaging(batch));
      else if (staging.length === 0 || this.#batchesInFlight + 2 > POOL_BATCHES_IN_FLIGHT)
        this.#launch(taken, (batch) => this.#flush(batch));
      else {
        this.#launch(staging, (batch) => this.#flushStaging(batch));
        this.#launch(others, (batch) => this.#flush(batch));
      }
    }
  }

  /** Applies some groups as one batch in flight. */
  #launch(taken: [unknown, Queued[]][], flush: (batch: Queued[][]) => Promise<void>): void {
    for (const [key] of taken) this.#inFlight.add(key);
    this.#batchesInFlight++;
    void flush(taken.map(([, writes]) => writes)).finally(() => {
      for (const [key] of taken) this.#inFlight.delete(key);
      this.#batchesInFlight--;
      this.#schedule();
    });
  }

  /**
   * Groups whose writes only stage rows: each applied as if its lease held, with a database that
   * refuses every statement, and their rows inserted in one statement that checks those leases
   * (`insertFenced`). Should a lease not hold, a write run a statement, or the statement fail, the
   * batch is applied again the usual way (`#flush`), where each group finds out for itself: the
   * writes only staged rows, so applying them again changes nothing but those rows.
   */
  async #flushStaging(batch: Queued[][]): Promise<void> {
    const insertFenced = this.#insertFenced as InsertFenced;
    // A key of its own for this batch's staged rows (`stage` finds them by it).
    const tx = refusing.withoutPlugins() as Transaction<Database>;
    const kinds = new Map<StagedInsert<never>, unknown[]>();
    staged.set(tx, kinds);
    const outcomes: Outcome[] = [];
    let held = false;
    try {
      const fences: Fence[] = [];
      for (const writes of batch) {
        const scope: WriteScope = new Map();
        const fence = fenceOf(writes);
        if (fence) {
          scope.set(leaseScopeKey(fence.runId), fence.leaseGen);
          fences.push(fence);
        }
        const values: unknown[] = [];
        for (const queued of writes) values.push(await queued.write(tx, scope));
        outcomes.push({ ok: true, values });
      }
      const { together, alone } = takeStaged(kinds);
      held = alone.length === 0 && (await insertFenced(this.#db, fences, together));
    } catch {
      // Applied again below, where the error (if it is one) reaches the writes it belongs to.
      held = false;
    } finally {
      staged.delete(tx);
    }
    if (!held) return this.#flush(batch);
    this.transactions++;
    answerBatch(batch, outcomes, false);
    answerBatch(batch, outcomes, true);
  }

  /** Whole groups that `free` allows, up to about BATCH_LIMIT writes, with their keys. */
  #take(free: (key: unknown) => boolean = () => true): [unknown, Queued[]][] {
    const taken: [unknown, Queued[]][] = [];
    let count = 0;
    for (const [key, writes] of this.#groups) {
      if (!free(key)) continue;
      if (count > 0 && count + writes.length > BATCH_LIMIT) break;
      taken.push([key, writes]);
      count += writes.length;
      this.#groups.delete(key);
    }
    this.#queued -= count;
    return taken;
  }

  async #flush(batch: Queued[][]): Promise<void> {
    let outcomes: Outcome[] = [];
    let committed = false;
    /** Answers the writes acknowledged at commit (`untilDisk` false) or once on disk (true). */
    const answer = (untilDisk: boolean) => answerBatch(batch, outcomes, untilDisk);
    /** Whether the last transaction's writes were all applied (what failed after was its commit). */
    let applied = false;
    const commit = (
      apply: (tx: Transaction<Database>, connection: DirectConnection | null) => Promise<Outcome[]>,
      staging = false,
    ) =>
      this.#db.transaction().execute(async (tx) => {
        applied = false;
        const connection = this.#direct(tx);
        if (connection && batch.some((writes) => writes.some((queued) => queued.urgent))) connection.urgent();
        if (staging) staged.set(tx, new Map());
        await this.#fenceBatch(tx, batch);
        const result = await apply(tx, connection);
        // Rows the writes staged are theirs: should their statement fail, so have the writes.
        await flushStaged(tx);
        staged.delete(tx);
        applied = true;
        connection?.afterCommit(() => {
          committed = true;
          outcomes = result;
          answer(false);
        });
        return result;
      });
    const pool = this.#batching === "pool";
    try {
      if (batch.length === 1 || !pool)
        outcomes = await commit(
          (tx, connection) => (batch.length === 1 ? applyAll(tx, batch) : applyGroups(tx, batch, connection)),
          pool,
        );
      else {
        // On PostgreSQL every statement is a round trip: no savepoint around the batch, and rows
        // staged for one statement per kind. Should a write fail (or a staged statement), the
        // transaction is rolled back and the batch applied again in a new one, each group behind
        // a savepoint of its own and inserting its own rows. A failed COMMIT is never tried again.
        try {
          outcomes = await commit((tx) => applyAll(tx, batch), true);
        } catch (error) {
          if (applied) throw error;
          outcomes = await commit((tx, connection) => applyEachAlone(tx, batch, connection));
        }
      }
    } catch (error) {
      // The writes failed, or the commit did (nothing was written), or the disk did not confirm it.
      for (const writes of batch)
        for (const queued of writes) if (!(committed && !queued.untilDisk)) queued.reject(error);
      return;
    }
    this.transactions++;
    if (!committed) answer(false);
    answer(true);
  }

  /**
   * The leases of the batch's runs in one statement, when more than one run's writes check one:
   * each group whose lease holds starts with it in its scope; the others check their own again
   * (and find it lost).
   */
  async #fenceBatch(tx: Transaction<Database>, batch: Queued[][]): Promise<void> {
    if (!this.#fenceAll) return;
    const fences = batch.flatMap((writes) => fenceOf(writes) ?? []);
    if (fences.length < 2) return;
    const held = await this.#fenceAll(tx, fences);
    fencedNow.set(tx, new Set(held.map((fence) => fence.runId)));
  }

  /** Inside a transaction this batcher holds: its prepared statements skip Kysely's executor. */
  #direct(tx: Transaction<Database>): DirectConnection | null {
    const connection = this.#openTransaction?.() ?? null;
    if (connection) runDirectly(tx, connection);
    return connection;
  }

  /** One statement, committed by PostgreSQL on its own once it succeeds. */
  async #statement<T>(write: Write<T>, committed?: () => void): Promise<T> {
    // The write sees a transaction's interface; a lone statement needs no more than the pool's.
    const value = await write(this.#db as Transaction<Database>, new Map());
    this.transactions++;
    committed?.();
    return value;
  }

  /**
   * `committed` is told once the write is visible to every later statement. With `urgent`, the
   * commit is put on disk at once instead of in the thread pool's next sync (someone is waiting).
   */
  async #alone<T>(write: Write<T>, committed?: () => void, urgent = false): Promise<T> {
    let told = false;
    const tell = () => {
      if (told) return;
      told = true;
      committed?.();
    };
    const result = await this.#db.transaction().execute(async (tx) => {
      const connection = this.#direct(tx);
      if (urgent) connection?.urgent();
      const value = await write(tx, new Map());
      connection?.afterCommit(tell);
      return value;
    });
    this.transactions++;
    // Where commits are not reported (PostgreSQL), a resolved write is committed.
    tell();
    return result;
  }
}
