// Hot queries built and compiled once. Building a query with Kysely and compiling it to SQL costs
// more than running it on SQLite; a query whose shape never changes is built here once per dialect
// with placeholder values, and each call only binds its values, by position. The query is still
// written once with Kysely's builder, so the same code serves SQLite and PostgreSQL.
import { createHash } from "node:crypto";
import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from "kysely";
import type { Database } from "../models/database.model.js";

// Placeholder values are strings no query holds as a constant: a parameter that holds one is bound
// per call. Valid text for every database (PostgreSQL refuses a NUL in text), so that the query as
// built can be shown to the database as it is (EXPLAIN in the index tests).
const PLACEHOLDER = "\uFFFFsuperstep-param:";

interface Shape {
  sql: string;
  /** Per parameter: the name of the value bound per call, or null for a constant of the query. */
  names: (string | null)[];
  constants: readonly unknown[];
}

// The SQL of every shape built here, with the name it is prepared under: on PostgreSQL these texts
// run as named prepared statements, parsed and planned once per connection (database.ts). The
// name follows from the text, so every connection and every process gives a shape the same one.
const shapeNames = new Map<string, string>();

/** The statement name of a prepared query's shape, or undefined for any other SQL. */
export function preparedShapeName(sql: string): string | undefined {
  return shapeNames.get(sql);
}

function nameShape(sql: string): void {
  if (!shapeNames.has(sql))
    shapeNames.set(sql, `superstep_${createHash("sha1").update(sql).digest("hex").slice(0, 20)}`);
}

export type PreparedQuery<P, R> = (db: Kysely<Database>, values: P) => Promise<QueryResult<R>>;

/** A connection in an open transaction that runs SQL at once (the embedded database's). */
export interface DirectConnection {
  run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R>;
  /** Called once the transaction has committed (visible, and kept if the process dies), before it is on disk. */
  afterCommit(committed: () => void): void;
  /** Someone waits for this transaction: once committed, put it on disk without waiting for a turn. */
  urgent(): void;
}

// Transactions whose statements may skip Kysely's executor and run on their connection directly.
const direct = new WeakMap<object, DirectConnection>();

/** Within `tx` (a transaction the caller holds), prepared queries run on `connection` directly. */
export function runDirectly(tx: Kysely<Database>, connection: DirectConnection): void {
  direct.set(tx, connection);
}

/**
 * `build` receives placeholders for `values` (use each as a plain value: in a where, a set, an
 * insert; never to choose the query's shape) and returns the query. Compiled on first use with
 * each dialect (the adapter names it: a transaction shares its database's).
 */
export function preparedQuery<P extends Record<string, unknown>, R = unknown>(
  build: (db: Kysely<Database>, values: P) => Compilable<R>,
): PreparedQuery<P, R> {
  const shapes = new WeakMap<object, Shape>();
  const placeholders = new Proxy({} as P, { get: (_target, name) => PLACEHOLDER + String(name) });
  return async (db, values) => {
    const adapter = db.getExecutor().adapter;
    let shape = shapes.get(adapter);
    if (!shape) {
      const compiled = build(db, placeholders).compile();
      const names = compiled.parameters.map((value) =>
        typeof value === "string" && value.startsWith(PLACEHOLDER) ? value.slice(PLACEHOLDER.length) : null,
      );
      shape = { sql: compiled.sql, names, constants: compiled.parameters };
      nameShape(compiled.sql);
      shapes.set(adapter, shape);
    }
    const { names, constants } = shape;
    const parameters = names.map((name, i) => (name === null ? constants[i] : values[name]));
    const connection = direct.get(db);
    if (connection) return connection.run<R>(shape.sql, parameters);
    return (await db.executeQuery(CompiledQuery.raw(shape.sql, parameters))) as QueryResult<R>;
  };
}
