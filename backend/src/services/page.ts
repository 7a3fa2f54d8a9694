import type { PaginationQuery } from "../schemas/common.schema.js";

export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  next_offset: number | null;
}

/** `rows` was fetched with limit + 1, so one extra row tells whether another page exists. */
export function toPage<T>(rows: T[], page: PaginationQuery): Page<T> {
  const more = rows.length > page.limit;
  return {
    items: more ? rows.slice(0, page.limit) : rows,
    limit: page.limit,
    offset: page.offset,
    next_offset: more ? page.offset + page.limit : null,
  };
}
