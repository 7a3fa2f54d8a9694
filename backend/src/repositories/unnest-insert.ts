// Any number of rows in one INSERT on PostgreSQL: one array per column, unnested into rows in their
// order. The statement's text does not depend on how many rows there are, so it is prepared once
// per connection like the other hot queries (prepared-query.ts), and it has as many parameters as
// columns, however many rows. A pool batch inserts the rows its runs staged this way
// (write-batcher.ts, `stage`), the rows of all its tables in one statement: each table's INSERT but
// the last in a data-modifying WITH, one round trip where there were one per table. With a guard
// (`insertUnnestedIf`), every INSERT is in the WITH, each inserts only if the guard holds, and the
// statement answers whether it did: a batch of rows and the check that allows them in one
// autocommitted round trip (write-batcher.ts, `insertFenced`).
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../models/database.model.js";
import { type PreparedQuery, preparedQuery } from "./prepared-query.js";

/** A column and its PostgreSQL type. */
export type UnnestColumn<R> = readonly [name: keyof R & string, type: "text" | "integer"];

/** Where rows go: a table, its columns, and the ON CONFLICT clause (constant SQL text). */
export interface UnnestTarget<R> {
  readonly table: keyof Database & string;
  readonly columns: readonly UnnestColumn<R>[];
  readonly conflict: string;
}

/** Inserts rows of one target in one statement; `target` lets a batch insert them with others'. */
export type UnnestInsert<R> = ((db: Kysely<Database>, rows: readonly R[]) => Promise<unknown>) & {
  readonly target: UnnestTarget<R>;
};

// biome-ignore lint/suspicious/noExplicitAny: targets of any row type share the statements' cache.
type AnyTarget = UnnestTarget<any>;
type Arrays = Record<string, unknown[]>;

/**
 * A condition that rows are inserted under, checked in their statement: `ctes` (the same text
 * whatever the values, which it reads from the arrays it is given) defines common table
 * expressions, the last named `guard`, of one row with one boolean column, `held`.
 */
export interface UnnestGuard {
  readonly ctes: (values: Record<string, unknown[]>) => RawBuilder<unknown>;
}

/** The INSERT of the `index`th target, its arrays named `p<index>_<column>`. */
function insertOf(target: AnyTarget, index: number, arrays: Arrays, guarded = false): RawBuilder<unknown> {
  const { table, columns, conflict } = target;
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))}) select * from unnest(${sql.join(
    columns.map(([name, type]) => sql`${arrays[`p${index}_${name}`]}::${sql.raw(type)}[]`),
  )})${sql.raw(guarded ? " where (select held from guard)" : "")} ${sql.raw(conflict)}`;
}

// One prepared statement per set of targets, in the order they were first seen: a batch stages a
// few kinds in any order, and each set is planned once per connection whatever that order.
const targetIds = new Map<AnyTarget, number>();
const statements = new Map<string, PreparedQuery<Arrays, unknown>>();

function idOf(target: AnyTarget): number {
  const id = targetIds.get(target) ?? targetIds.size;
  targetIds.set(target, id);
  return id;
}

function statementFor(targets: readonly AnyTarget[]): PreparedQuery<Arrays, unknown> {
  const key = targets.map(idOf).join(",");
  let statement = statements.get(key);
  if (!statement) {
    statement = preparedQuery((db: Kysely<Database>, arrays: Arrays) => {
      const last = targets.length - 1;
      const inserts = targets.map((target, i) => insertOf(target, i, arrays));
      if (last === 0) return { compile: () => (inserts[0] as RawBuilder<unknown>).compile(db) };
      const withs = inserts.slice(0, last).map((insert, i) => sql`${sql.raw(`s${i}`)} as (${insert})`);
      return { compile: () => sql`with ${sql.join(withs)} ${inserts[last]}`.compile(db) };
    });
    statements.set(key, statement);
  }
  return statement;
}

// The guarded statements, by guard and then by set of targets.
const guardedStatements = new WeakMap<object, Map<string, PreparedQuery<Arrays, { held: boolean }>>>();

function guardedStatementFor(
  guard: UnnestGuard,
  targets: readonly AnyTarget[],
): PreparedQuery<Arrays, { held: boolean }> {
  let byTargets = guardedStatements.get(guard);
  if (!byTargets) {
    byTargets = new Map();
    guardedStatements.set(guard, byTargets);
  }
  const key = targets.map(idOf).join(",");
  let statement = byTargets.get(key);
  if (!statement) {
    statement = preparedQuery((db: Kysely<Database>, arrays: Arrays) => {
      const inserts = targets.map((target, i) => sql`${sql.raw(`s${i}`)} as (${insertOf(target, i, arrays, true)})`);
      return {
        compile: () =>
          sql<{ held: boolean }>`with ${guard.ctes(arrays)}, ${sql.join(inserts)} select held from guard`.compile(db),
      };
    });
    byTargets.set(key, statement);
  }
  return statement;
}

/** Named as `insertUnnested` names them: the `index`th part's column arrays. */
function arraysOf(ordered: readonly (readonly [AnyTarget, readonly object[]])[], into: Arrays): Arrays {
  ordered.forEach(([target, rows], i) => {
    for (const [name] of target.columns)
      into[`p${i}_${name}`] = rows.map((row) => (row as Record<string, unknown>)[name] ?? null);
  });
  return into;
}

/**
 * Rows of several targets in one statement, inserted only if `guard` holds (given its own
 * arrays, `values`): true when it held and the rows were inserted, false when none was. As in
 * `insertUnnested`, no target may insert rows under the same key of one table as another.
 */
export async function insertUnnestedIf(
  db: Kysely<Database>,
  guard: UnnestGuard,
  values: Record<string, unknown[]>,
  parts: readonly (readonly [target: AnyTarget, rows: readonly object[]])[],
): Promise<boolean> {
  const ordered = [...parts].sort(([a], [b]) => idOf(a) - idOf(b));
  const arrays = arraysOf(ordered, { ...values });
  const statement = guardedStatementFor(
    guard,
    ordered.map(([target]) => target),
  );
  const { rows } = await statement(db, arrays);
  return rows[0]?.held === true;
}

/**
 * Rows of several targets in one statement. Their INSERTs see the same snapshot and none sees the
 * others' rows: the targets must not insert rows under the same key of one table.
 */
export function insertUnnested(
  db: Kysely<Database>,
  parts: readonly (readonly [target: AnyTarget, rows: readonly object[]])[],
): Promise<unknown> {
  const ordered = [...parts].sort(([a], [b]) => idOf(a) - idOf(b));
  return statementFor(ordered.map(([target]) => target))(db, arraysOf(ordered, {}));
}

/** `insert into table (columns) select * from unnest(arrays) <conflict>`. */
export function unnestInsert<R extends object>(
  table: keyof Database & string,
  columns: readonly UnnestColumn<R>[],
  conflict: string,
): UnnestInsert<R> {
  const target: UnnestTarget<R> = { table, columns, conflict };
  return Object.assign((db: Kysely<Database>, rows: readonly R[]) => insertUnnested(db, [[target, rows]]), { target });
}
