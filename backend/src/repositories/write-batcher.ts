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
// PostgreSQL commits concurrent transactions in parallel and groups their WAL flushes itself:
// there each write is its own transaction (and its own scope), as before.
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "../models/database.model.js";
import { type DirectConnection, runDirectly } from "./prepared-query.js";

/** What the writes of one group share within one transaction (e.g. a lease already checked). */
export type WriteScope = Map<string, unknown>;
export type Write<T> = (tx: Transaction<Database>, scope: WriteScope) => Promise<T>;

interface Queued {
  write: Write<unknown>;
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

type Outcome = { ok: true; values: unknown[] } | { ok: false; error: unknown };

/** A group's writes in order, sharing a fresh scope. */
async function applyGroup(tx: Transaction<Database>, writes: Queued[]): Promise<unknown[]> {
  const scope: WriteScope = new Map();
  const values: unknown[] = [];
  for (const queued of writes) values.push(await queued.write(tx, scope));
  return values;
}

export interface WriteBatcherOptions {
  /** Shared transactions (the embedded database); otherwise each write is its own. */
  batching: boolean;
  /** The connection of the transaction open now, to run prepared statements on directly. */
  openTransaction?: () => DirectConnection | null;
}

export class WriteBatcher {
  readonly #db: Kysely<Database>;
  readonly #batching: boolean;
  readonly #openTransaction: (() => DirectConnection | null) | undefined;
  /** Queued writes by group, in order of each group's first write. */
  #groups = new Map<unknown, Queued[]>();
  #queued = 0;
  #scheduled = false;
  /** Transactions committed (tests and benchmarks count them). */
  transactions = 0;

  constructor(db: Kysely<Database>, options: WriteBatcherOptions) {
    this.#db = db;
    this.#batching = options.batching;
    this.#openTransaction = options.openTransaction;
  }

  /**
   * Whether a write runs holding the database's write lock from its start (SQLite's BEGIN
   * IMMEDIATE): then reading a row is as good a fence as updating it, since nobody else can
   * change it before the commit. On PostgreSQL only an UPDATE (or a row lock) fences.
   */
  get holdsWriteLock(): boolean {
    return this.#batching;
  }

  /**
   * Applies `write` in a transaction (shared with other writes on SQLite); resolves once it is on
   * disk. Writes with the same `group` (a run's id) share a savepoint and a scope in a batch.
   */
  run<T>(write: Write<T>, group?: string): Promise<T> {
    if (!this.#batching) return this.#alone(write);
    return new Promise<T>((resolve, reject) => {
      const key = group ?? Symbol();
      const queued = { write, resolve: resolve as (value: unknown) => void, reject };
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
      void this.#flush(this.#take());
      this.#schedule();
    });
  }

  /** Whole groups, up to about BATCH_LIMIT writes. */
  #take(): Queued[][] {
    const batch: Queued[][] = [];
    let count = 0;
    for (const [key, writes] of this.#groups) {
      if (count > 0 && count + writes.length > BATCH_LIMIT) break;
      batch.push(writes);
      count += writes.length;
      this.#groups.delete(key);
    }
    this.#queued -= count;
    return batch;
  }

  async #flush(batch: Queued[][]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Queued[]];
      await this.#alone(async (tx, scope) => {
        const values: unknown[] = [];
        for (const queued of only) values.push(await queued.write(tx, scope));
        return values;
      }).then(
        (values) => {
          only.forEach((queued, i) => {
            queued.resolve(values[i]);
          });
        },
        (error: unknown) => {
          for (const queued of only) queued.reject(error);
        },
      );
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = await this.#db.transaction().execute(async (tx) => {
        const connection = this.#direct(tx);
        const exec = async (query: CompiledQuery) => {
          if (connection) connection.run(query.sql, []);
          else await tx.executeQuery(query);
        };
        // Writes rarely fail: all groups at once behind one savepoint first.
        await exec(SAVEPOINT_ALL);
        try {
          const out: Outcome[] = [];
          for (const writes of batch) out.push({ ok: true, values: await applyGroup(tx, writes) });
          await exec(RELEASE_ALL);
          return out;
        } catch {
          await exec(ROLLBACK_TO_ALL);
          await exec(RELEASE_ALL);
        }
        // One failed: again, each group behind a savepoint of its own, so that only a failing
        // group is undone and the others commit.
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
      });
    } catch (error) {
      // The commit failed (nothing was written), or the disk did not confirm it.
      for (const writes of batch) for (const queued of writes) queued.reject(error);
      return;
    }
    this.transactions++;
    batch.forEach((writes, i) => {
      const outcome = outcomes[i] as (typeof outcomes)[number];
      writes.forEach((queued, j) => {
        if (outcome.ok) queued.resolve(outcome.values[j]);
        else queued.reject(outcome.error);
      });
    });
  }

  /** Inside a transaction this batcher holds: its prepared statements skip Kysely's executor. */
  #direct(tx: Transaction<Database>): DirectConnection | null {
    const connection = this.#openTransaction?.() ?? null;
    if (connection) runDirectly(tx, connection);
    return connection;
  }

  async #alone<T>(write: Write<T>): Promise<T> {
    const result = await this.#db.transaction().execute((tx) => {
      this.#direct(tx);
      return write(tx, new Map());
    });
    this.transactions++;
    return result;
  }
}
