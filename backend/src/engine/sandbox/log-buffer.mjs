// What user code prints, kept within a line and byte budget. Used on both sides of the pipe: the
// child stops streaming once the budget is spent, and the parent applies it again because it must
// not trust anything the child sends.

export const LOG_LIMITS = Object.freeze({ maxLines: 100, maxBytes: 16 * 1024 });

const TRUNCATED = "… (more output was dropped)";

export class LogBuffer {
  #lines = [];
  #bytes = 0;
  #full = false;
  #limits;

  constructor(limits = LOG_LIMITS) {
    this.#limits = limits;
  }

  /** Adds one line; returns the text actually kept (possibly cut short), or null once full. */
  add(line) {
    if (this.#full) return null;
    const text = String(line);
    const room = this.#limits.maxBytes - this.#bytes;
    if (this.#lines.length >= this.#limits.maxLines || room <= 0) {
      return this.#close();
    }
    const bytes = Buffer.byteLength(text);
    if (bytes > room) {
      // Cut by bytes, then drop a half-cut character so the kept text stays valid UTF-8.
      const kept = Buffer.from(text)
        .subarray(0, room)
        .toString("utf8")
        .replace(/\uFFFD$/, "");
      this.#lines.push(kept);
      this.#bytes += room;
      this.#close();
      return kept;
    }
    this.#lines.push(text);
    this.#bytes += bytes;
    return text;
  }

  get full() {
    return this.#full;
  }

  get lines() {
    return [...this.#lines];
  }

  #close() {
    this.#full = true;
    this.#lines.push(TRUNCATED);
    return TRUNCATED;
  }
}
