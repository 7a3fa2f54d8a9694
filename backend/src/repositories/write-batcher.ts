// Writes of many runs in one transaction. On the embedded database every transaction is one
// COMMIT of the single connection and one more set of WAL pages: a run's superstep (events,
// the task writes, the checkpoint) and the other runs' writes that arrive in the same turn of the
// event loop are committed together, and each caller is answered once that commit is on disk
// (node-sqlite.dialect.ts). Each write is still all-or-nothing and keeps its order: a batch is
// applied in arrival order, each write behind a savepoint, so a write that fails is undone alone
// and its failure is only ever its own caller's.
//
// PostgreSQL commits concurrent transactions in parallel and groups their WAL flushes itself:
// there each write is its own transaction, as before.
import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "../models/database.model.js";

export type Write<T> = (tx: Transaction<Database>) => Promise<T>;

interface Queued {
  write: Write<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

// A batch larger than this is split: one transaction never holds the connection for long.
const BATCH_LIMIT = 256;
const SAVEPOINT = CompiledQuery.raw("savepoint batched_write");
const RELEASE = CompiledQuery.raw("release batched_write");
const ROLLBACK_TO = CompiledQuery.raw("rollback to batched_write");

export class WriteBatcher {
  readonly #db: Kysely<Database>;
  readonly #batching: boolean;
  #queue: Queued[] = [];
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

  /** Applies `write` in a transaction (shared with other writes on SQLite); resolves once it is on disk. */
  run<T>(write: Write<T>): Promise<T> {
    if (!this.#batching) return this.#alone(write);
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    // After the current turn: what the runs write in it (a task's writes and the checkpoint that
    // follows, events) joins the same batch.
    setImmediate(() => {
      this.#scheduled = false;
      const batch = this.#queue.splice(0, BATCH_LIMIT);
      this.#schedule();
      void this.#flush(batch);
    });
  }

  async #flush(batch: Queued[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Queued];
      await this.#alone(only.write).then(only.resolve, only.reject);
      return;
    }
    let outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[];
    try {
      outcomes = await this.#db.transaction().execute(async (tx) => {
        const out: typeof outcomes = [];
        for (const item of batch) {
          // Each write behind a savepoint: one that fails is undone alone, the others commit.
          await tx.executeQuery(SAVEPOINT);
          try {
            out.push({ ok: true, value: await item.write(tx) });
            await tx.executeQuery(RELEASE);
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
      for (const item of batch) item.reject(error);
      return;
    }
    this.transactions++;
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as (typeof outcomes)[number];
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  async #alone<T>(write: Write<T>): Promise<T> {
    const result = await this.#db.transaction().execute(write);
    this.transactions++;
    return result;
  }
}
