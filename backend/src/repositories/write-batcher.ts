// Writes of many runs in one transaction. On the embedded database every transaction is one
// COMMIT of the single connection and one more set of WAL pages: a run's superstep (events,
// the task writes, the checkpoint) and the other runs' writes that arrive in the same turn of the
// event loop are committed together, and each caller is answered once that commit is on disk
// (node-sqlite.dialect.ts).
//
// Each write is still all or nothing and keeps its order. The writes of one group (one run, by its
// key) in a batch are applied in arrival order behind one savepoint: if one of them fails, that
// group's writes are undone and each of its callers is told, while the other groups commit. A
// group shares a scope for the batch, so a run's lease is checked once per batch, not per write.
//
// PostgreSQL commits concurrent transactions in parallel and groups their WAL flushes itself:
// there each write is its own transaction (and its own scope), as before.
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "../models/database.model.js";

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

export class WriteBatcher {
  readonly #db: Kysely<Database>;
  readonly #batching: boolean;
  /** Queued writes by group, in order of each group's first write. */
  #groups = new Map<unknown, Queued[]>();
  #queued = 0;
  #scheduled = false;
  /** Transactions committed (tests and benchmarks count them). */
  transactions = 0;

  constructor(db: Kysely<Database>, options: { batching: boolean }) {
    this.#db = db;
    this.#batching = options.batching;
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
    let outcomes: ({ ok: true; values: unknown[] } | { ok: false; error: unknown })[];
    try {
      outcomes = await this.#db.transaction().execute(async (tx) => {
        const out: typeof outcomes = [];
        for (const writes of batch) {
          // Each group behind a savepoint: one that fails is undone alone, the others commit.
          await tx.executeQuery(SAVEPOINT);
          try {
            const scope: WriteScope = new Map();
            const values: unknown[] = [];
            for (const queued of writes) values.push(await queued.write(tx, scope));
            await tx.executeQuery(RELEASE);
            out.push({ ok: true, values });
          } catch (error) {
            await tx.executeQuery(ROLLBACK_TO);
            await tx.executeQuery(RELEASE);
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

  async #alone<T>(write: Write<T>): Promise<T> {
    const result = await this.#db.transaction().execute((tx) => write(tx, new Map()));
    this.transactions++;
    return result;
  }
}
