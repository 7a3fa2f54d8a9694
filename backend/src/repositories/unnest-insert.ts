// Any number of rows in one INSERT on PostgreSQL: one array per column, unnested into rows in their
// order. The statement's text does not depend on how many rows there are, so it is prepared once
// per connection like the other hot queries (prepared-query.ts), and it has as many parameters as
// columns, however many rows. A pool batch inserts the rows its runs staged this way
// (write-batcher.ts, `stage`).
import { type Kysely, sql } from "kysely";
import type { Database } from "../models/database.model.js";
import { preparedQuery } from "./prepared-query.js";

/** A column and its PostgreSQL type. */
export type UnnestColumn<R> = readonly [name: keyof R & string, type: "text" | "integer"];

/**
 * `insert into table (columns) select * from unnest(arrays) <conflict>`, where `conflict` is the
 * statement's ON CONFLICT clause, written here as constant SQL text.
 */
export function unnestInsert<R extends object>(
  table: keyof Database & string,
  columns: readonly UnnestColumn<R>[],
  conflict: string,
): (db: Kysely<Database>, rows: readonly R[]) => Promise<unknown> {
  const query = preparedQuery((db: Kysely<Database>, arrays: Record<string, unknown[]>) => ({
    compile: () =>
      sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))}) select * from unnest(${sql.join(
        columns.map(([name, type]) => sql`${arrays[name]}::${sql.raw(type)}[]`),
      )}) ${sql.raw(conflict)}`.compile(db),
  }));
  return (db, rows) => {
    const arrays: Record<string, unknown[]> = {};
    for (const [name] of columns) arrays[name] = rows.map((row) => (row as Record<string, unknown>)[name] ?? null);
    return query(db, arrays);
  };
}
