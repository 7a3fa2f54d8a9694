import type { Page } from "../../services/page.js";

export function pageResponse<T>(page: Page<T>) {
  return {
    data: page.items,
    pagination: { limit: page.limit, offset: page.offset, next_offset: page.next_offset },
  };
}
