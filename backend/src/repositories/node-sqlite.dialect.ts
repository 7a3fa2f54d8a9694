// Kysely over Node's built-in SQLite (node:sqlite): no native addon to build. One database
// connection, handed to one query or transaction at a time (a mutex), with compiled statements
// kept for reuse.
//
// With a WalDurability (the studio's database), a write is acknowledged only once the WAL sync
// that covers it has completed (group commit, see wal-durability.ts), and the connection is handed
// to the next caller while that sync runs: the disk never holds the connection or the event loop.
//
// A lock held by another connection (another process on the same file) is waited for here,
// asynchronously: SQLite's own busy_timeout would sleep inside the synchronous call and freeze the
// whole process (see sqlite-busy-wait.ts).
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { DirectConnection } from "./prepared-query.js";
import { lockReleased, waitWhileBusy } from "./sqlite-busy-wait.js";
import type { WalCheckpointer } from "./wal-checkpointer.js";
import type { WalDurability } from "./wal-durability.js";

// Distinct SQL texts are few (Kysely builds the same text for the same query shape); the bound
// only guards against a caller that builds texts with values inlined.
const STATEMENT_CACHE_LIMIT = 500;

function toSqlite(value: unknown): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) return null;
  return value as SQLInputValue;
}

/** A prepared statement, whether it returns rows, and whether it may change the database. */
interface Prepared {
  statement: StatementSync;
  returnsRows: boolean;
  reads: boolean;
}

/** The one connection and what its holders share. */
class SharedConnection {
  readonly db: DatabaseSync;
  readonly durability: WalDurability | undefined;
  readonly checkpointer: WalCheckpointer | undefined;
  readonly #statements = new Map<string, Prepared>();

  constructor(db: DatabaseSync, options: NodeSqliteOptions) {
    this.db = db;
    this.durability = options.durability;
    this.checkpointer = options.checkpointer;
  }

  prepare(sql: string): Prepared {
    const cached = this.#statements.get(sql);
    if (cached) return cached;
    const statement = this.db.prepare(sql);
    const prepared = {
      statement,
      // columns() exists from Node 22.16; before that, fall back to the query's text.
      returnsRows:
        typeof statement.columns === "function"
          ? statement.columns().length > 0
          : /^\s*select\b|\breturning\b/i.test(sql),
      // Only a plain SELECT is known not to write; anything else is treated as a write.
      reads: /^\s*select\b/i.test(sql),
    };
    if (this.#statements.size >= STATEMENT_CACHE_LIMIT) this.#statements.clear();
    this.#statements.set(sql, prepared);
    return prepared;
  }

  /** Throws the failed sync's error (see wal-durability.ts) when there was one. */
  refuseIfUnsynced(): void {
    const failure = this.durability?.failure;
    if (failure) throw failure;
  }

  /** Forgets prepared statements (after a schema change, or before closing). */
  forget(): void {
    this.#statements.clear();
  }
}

/** One holder's hold on the shared connection, from acquire to release. */
class NodeSqliteConnection implements DatabaseConnection {
  readonly #shared: SharedConnection;
  readonly #release: () => void;
  /** Until when this holder may wait for another connection's lock. */
  readonly deadline: number;
  #released = false;
  inTransaction = false;
  /** The durability mark of this hold's last commit (0: nothing committed). */
  committed = 0;
  /** Told when this hold's transaction has committed, before it is on disk. */
  readonly onCommit: (() => void)[] = [];
  /** Someone waits for this hold's commit: put it on disk at once (WalDurability.durableNow). */
  urgent = false;

  constructor(shared: SharedConnection, release: () => void, deadline: number) {
    this.#shared = shared;
    this.#release = release;
    this.deadline = deadline;
  }

  /**
   * Hands the connection on, then waits until what this hold committed is on disk: the sync
   * needs no connection, so the next holder runs meanwhile (and shares the sync).
   */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#release();
    const durability = this.#shared.durability;
    if (durability && this.committed > 0)
      await (this.urgent ? durability.durableNow(this.committed) : durability.durable(this.committed));
  }

  /** Runs one statement; notes a commit when it wrote outside a transaction. */
  run<R>(query: CompiledQuery): QueryResult<R> {
    return this.runSql<R>(query.sql, query.parameters);
  }

  runSql<R>(sql: string, values: readonly unknown[]): QueryResult<R> {
    if (this.#released) throw new Error("This database connection was already released.");
    const prepared = this.#shared.prepare(sql);
    // Once the disk failed a sync nothing can be acknowledged: a write (or a COMMIT) is refused
    // before it changes anything, so no change is kept that its caller was told had failed.
    if (!prepared.reads && !this.inTransaction) this.#shared.refuseIfUnsynced();
    const parameters = values.map(toSqlite);
    let result: QueryResult<R>;
    if (prepared.returnsRows) {
      result = { rows: prepared.statement.all(...parameters) as R[] };
    } else {
      const { changes, lastInsertRowid } = prepared.statement.run(...parameters);
      result = { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    }
    const mark = this.#shared.durability?.touch();
    // A write outside a transaction (COMMIT included) has committed and let go of the write lock.
    if (!prepared.reads && !this.inTransaction) {
      if (mark !== undefined) {
        this.committed = mark;
        this.#shared.checkpointer?.committed();
      }
      lockReleased();
    }
    return result;
  }

  /** A statement refused with SQLITE_BUSY changed nothing: it is tried again until the deadline. */
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return waitWhileBusy(() => this.run<R>(query), this.deadline);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (this.#released) throw new Error("This database connection was already released.");
    this.#shared.durability?.touch();
    // Not from the statement cache: iterating keeps the statement busy until the caller is done.
    const statement = this.#shared.db.prepare(query.sql);
    for (const row of statement.iterate(...query.parameters.map(toSqlite))) {
      yield { rows: [row as R] };
    }
  }
}

class NodeSqliteDriver implements Driver {
  readonly #shared: SharedConnection;
  readonly #busyTimeoutMs: number;
  #queue: Promise<void> = Promise.resolve();
  /** The hold whose transaction is open (only one can be: holds take turns). */
  inTransaction: NodeSqliteConnection | null = null;

  constructor(db: DatabaseSync, options: NodeSqliteOptions) {
    this.#shared = new SharedConnection(db, options);
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // The wait for a lock counts from when the caller asked: a request queued behind others while
    // another process holds the lock is answered DATABASE_BUSY at its own deadline, not after
    // every request before it has waited its full timeout in turn.
    const asked = Date.now();
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    return new NodeSqliteConnection(this.#shared, release, asked + this.#busyTimeoutMs);
  }

  /** Kysely awaits this before the query or transaction resolves: a write is acknowledged on disk. */
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as NodeSqliteConnection).release();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const held = connection as NodeSqliteConnection;
    this.#shared.refuseIfUnsynced();
    held.inTransaction = true;
    // IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading a read;
    // the lock is the one thing another connection can make it wait for.
    try {
      await waitWhileBusy(() => held.run(CompiledQuery.raw("begin immediate")), held.deadline);
    } catch (error) {
      held.inTransaction = false;
      throw error;
    }
    this.inTransaction = held;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const held = connection as NodeSqliteConnection;
    // Run as a write outside the transaction: the release waits until it is on disk.
    held.inTransaction = false;
    try {
      await waitWhileBusy(() => held.run(CompiledQuery.raw("commit")), held.deadline);
    } catch (error) {
      // Not committed: the transaction is still open (or SQLite rolled it back), and the rollback
      // that follows runs inside it.
      held.inTransaction = true;
      throw error;
    }
    this.inTransaction = null;
    for (const committed of held.onCommit.splice(0)) committed();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const held = connection as NodeSqliteConnection;
    held.inTransaction = true;
    // SQLite rolls back by itself on some errors (SQLITE_FULL, or a failed COMMIT): a second
    // rollback would fail and hide the error that caused it.
    if (this.#shared.db.isTransaction ?? true) held.run(CompiledQuery.raw("rollback"));
    held.inTransaction = false;
    lockReleased();
    this.inTransaction = null;
    held.onCommit.length = 0;
  }

  async destroy(): Promise<void> {
    // Every holder's turn ends before the connection closes.
    await this.#queue;
    this.#shared.forget();
    await this.#shared.checkpointer?.close();
    await this.#shared.durability?.close();
    if (this.#shared.db.isOpen) this.#shared.db.close();
  }
}

/** SQLite's adapter, but the mutex is this driver's own (so a sync in flight does not hold it). */
class NodeSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

export interface NodeSqliteOptions {
  /** Acknowledges writes once on disk (group commit); without it, at COMMIT. */
  durability?: WalDurability;
  /** Checkpoints the WAL from a worker thread. */
  checkpointer?: WalCheckpointer;
  /** How long a statement waits for a lock another connection holds (SQLITE_BUSY); 5 s by default. */
  busyTimeoutMs?: number;
}

export class NodeSqliteDialect implements Dialect {
  readonly #db: DatabaseSync;
  readonly #options: NodeSqliteOptions;
  #driver: NodeSqliteDriver | null = null;

  constructor(db: DatabaseSync, options: NodeSqliteOptions = {}) {
    this.#db = db;
    this.#options = options;
  }

  /**
   * The connection of the transaction open right now, to run statements on directly (for the
   * caller that holds it: see WriteBatcher); null outside a transaction.
   */
  openTransaction(): DirectConnection | null {
    const held = this.#driver?.inTransaction;
    return held
      ? {
          run: (sql, parameters) => held.runSql(sql, parameters),
          afterCommit: (committed) => held.onCommit.push(committed),
          urgent: () => {
            held.urgent = true;
          },
        }
      : null;
  }

  createAdapter() {
    return new NodeSqliteAdapter();
  }

  createDriver(): Driver {
    this.#driver = new NodeSqliteDriver(this.#db, this.#options);
    return this.#driver;
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's introspector is typed for any schema.
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
}
