// Problems found by one validation, kept to a bounded number: a hostile document can produce
// one problem per reference or per zod issue, and the answer has to stay small. What is left out
// is counted and reported in one last entry.
import { VALIDATION_CATALOG, type ValidationCode } from "../../core/errors.js";

export interface Problem {
  code: ValidationCode;
  message: string;
  node_id?: string;
  edge_id?: string;
  path?: string;
}

/** Problems one validation lists before it only counts them. */
export const MAX_PROBLEMS = 500;
/** Problems of a child workflow listed under each Subgraph node that uses it. */
export const MAX_SUBGRAPH_PROBLEMS = 20;

export function problem(
  code: ValidationCode,
  where: Omit<Problem, "code" | "message"> = {},
  message?: string,
): Problem {
  return { code, message: message ?? VALIDATION_CATALOG[code], ...where };
}

/** The entry that stands for `count` problems left out. */
export function truncated(count: number, where: Omit<Problem, "code" | "message"> = {}, prefix = ""): Problem {
  const more = count === 1 ? "1 more problem was" : `${count.toLocaleString("en-US")} more problems were`;
  return problem(
    "PROBLEMS_TRUNCATED",
    where,
    `${prefix}${more} found and not listed: fix these first, then validate again.`,
  );
}

export class ProblemList {
  readonly #kept: Problem[] = [];
  readonly #limit: number;
  /** Problems found, whether listed or not. */
  #total = 0;
  /** Problems the kept entries stand for (a truncation entry stands for several). */
  #represented = 0;

  constructor(limit = MAX_PROBLEMS) {
    this.#limit = limit;
  }

  push(entry: Problem): void {
    this.#total++;
    if (this.#kept.length < this.#limit) {
      this.#kept.push(entry);
      this.#represented++;
    }
  }

  /** One entry standing for `count` problems that are not listed (a child workflow's). */
  pushTruncated(count: number, where: Omit<Problem, "code" | "message">, prefix: string): void {
    this.#total += count;
    if (this.#kept.length < this.#limit) {
      this.#kept.push(truncated(count, where, prefix));
      this.#represented += count;
    }
  }

  get total(): number {
    return this.#total;
  }

  /** The listed problems, then one entry counting the rest when some were left out. */
  toArray(): Problem[] {
    const rest = this.#total - this.#represented;
    return rest > 0 ? [...this.#kept, truncated(rest)] : [...this.#kept];
  }
}
