// Kysely over Node's built-in SQLite (node:sqlite): no native addon to build. One connection,
// handed to one query or transaction at a time, like Kysely's own SQLite driver plus a mutex.
// A lock held by another connection is waited for here, asynchronously (SQLite's own busy_timeout
// would sleep inside the synchronous call and freeze the whole process): see busy-wait.
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import { waitWhileBusy } from "./sqlite-busy-wait.js";

function toSqlite(value: unknown): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) return null;
  return value as SQLInputValue;
}

function returnsRows(statement: StatementSync, query: CompiledQuery): boolean {
  // columns() exists from Node 22.16; before that, fall back to the query's kind.
  if (typeof statement.columns === "function") return statement.columns().length > 0;
  return SelectQueryNode.is(query.query) || /\breturning\b/i.test(query.sql);
}

class NodeSqliteConnection implements DatabaseConnection {
  readonly #db: DatabaseSync;
  /** Until when the current holder may wait for another connection's lock (set on each acquisition). */
  deadline = 0;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return waitWhileBusy(() => this.#execute<R>(query), this.deadline);
  }

  #execute<R>(query: CompiledQuery): QueryResult<R> {
    const statement = this.#db.prepare(query.sql);
    const parameters = query.parameters.map(toSqlite);
    if (returnsRows(statement, query)) {
      return { rows: statement.all(...parameters) as R[] };
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.#db.prepare(query.sql);
    for (const row of statement.iterate(...query.parameters.map(toSqlite))) {
      yield { rows: [row as R] };
    }
  }
}

class NodeSqliteDriver implements Driver {
  readonly #db: DatabaseSync;
  readonly #connection: NodeSqliteConnection;
  readonly #busyTimeoutMs: number;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(db: DatabaseSync, busyTimeoutMs: number) {
    this.#db = db;
    this.#connection = new NodeSqliteConnection(db);
    this.#busyTimeoutMs = busyTimeoutMs;
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
    this.#release = release;
    this.#connection.deadline = asked + this.#busyTimeoutMs;
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading a read.
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite rolls back by itself on some errors (SQLITE_FULL): a second rollback would fail and
    // hide the error that caused it.
    if (!this.#db.isTransaction) return;
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #db: DatabaseSync;
  readonly #busyTimeoutMs: number;

  /** `busyTimeoutMs`: how long a query waits for a lock another connection holds (SQLITE_BUSY). */
  constructor(db: DatabaseSync, options: { busyTimeoutMs?: number } = {}) {
    this.#db = db;
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new NodeSqliteDriver(this.#db, this.#busyTimeoutMs);
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's introspector is typed for any schema.
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
}
