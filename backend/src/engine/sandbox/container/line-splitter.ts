// A command's output as lines: bytes are split at "\n" before they are decoded, so a character cut
// across two chunks stays whole. A line longer than the limit is cut there and the rest of it
// dropped, so that output without newlines cannot grow the server's memory without bound.

/** Longer than any protocol line runner.py prints (a checkpoint is at most 2 MB of JSON). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class LineSplitter {
  readonly #onLine: (line: string) => void;
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The current line was cut at the limit: its rest, up to the next newline, is dropped. */
  #skipping = false;

  constructor(onLine: (line: string) => void, maxBytes = MAX_LINE_BYTES) {
    this.#onLine = onLine;
    this.#maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(10);
      const part = newline === -1 ? rest : rest.subarray(0, newline);
      if (!this.#skipping) this.#add(part);
      if (newline === -1) return;
      if (this.#skipping) this.#skipping = false;
      else this.#emit();
      rest = rest.subarray(newline + 1);
    }
  }

  /** The output ended: a last line without its newline is given too. */
  end(): void {
    if (!this.#skipping && this.#pendingBytes > 0) this.#emit();
    this.#skipping = false;
  }

  #add(part: Buffer): void {
    const room = this.#maxBytes - this.#pendingBytes;
    if (part.length <= room) {
      this.#pending.push(part);
      this.#pendingBytes += part.length;
      return;
    }
    this.#pending.push(part.subarray(0, room));
    this.#pendingBytes += room;
    this.#emit();
    this.#skipping = true;
  }

  #emit(): void {
    const line = Buffer.concat(this.#pending).toString("utf8");
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#onLine(line);
  }
}
