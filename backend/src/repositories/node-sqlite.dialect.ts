// Kysely over Node's built-in SQLite (node:sqlite): no native addon to build. One connection,
// handed to one query or transaction at a time, like Kysely's own SQLite driver plus a mutex.
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

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
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
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#connection = new NodeSqliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
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
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new NodeSqliteDriver(this.#db);
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's introspector is typed for any schema.
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
}
