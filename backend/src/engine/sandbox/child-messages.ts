// The parent's reading of what a sandbox child writes on stdout (the protocol is described in
// sandbox-child.mjs). The child runs user code, so every line is validated, never trusted.

export type FailureCode = "CODE_ERROR" | "CODE_TIMEOUT" | "CODE_MEMORY" | "CODE_RESULT_INVALID";

export type ChildMessage =
  | { type: "snapshot"; bytes: number }
  | { type: "ready" }
  | { type: "started" }
  | { type: "log"; line: string }
  | { type: "result"; ok: true }
  | { type: "result"; ok: false; code: FailureCode; message: string };

const FAILURE_CODES = new Set<string>(["CODE_ERROR", "CODE_TIMEOUT", "CODE_MEMORY", "CODE_RESULT_INVALID"]);
// An error message travels on into run events and API answers; a code can raise a huge one.
const MAX_MESSAGE_CHARS = 2000;

/** One protocol line, or null when the line is not a message of the protocol. */
export function parseMessage(line: string): ChildMessage | null {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof message !== "object" || message === null) return null;
  const m = message as Record<string, unknown>;
  if (m.type === "snapshot" && Number.isSafeInteger(m.bytes) && (m.bytes as number) >= 0) {
    return { type: "snapshot", bytes: m.bytes as number };
  }
  if (m.type === "ready") return { type: "ready" };
  if (m.type === "started") return { type: "started" };
  if (m.type === "log" && typeof m.line === "string") return { type: "log", line: m.line };
  if (m.type === "result" && m.ok === true) return { type: "result", ok: true };
  if (m.type === "result" && m.ok === false && typeof m.code === "string" && FAILURE_CODES.has(m.code)) {
    const text = typeof m.message === "string" ? m.message.slice(0, MAX_MESSAGE_CHARS) : "The code failed.";
    return { type: "result", ok: false, code: m.code as FailureCode, message: text };
  }
  return null;
}

/**
 * The line after a successful result header: main's return value as JSON text, serialised inside
 * the VM. Numbers beyond a double's range (a Python int such as 10**400) parse as Infinity here
 * and are refused like any other value JSON cannot carry.
 */
export function parseResultValue(line: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    const value: unknown = JSON.parse(line, (_key, item: unknown) => {
      if (typeof item === "number" && !Number.isFinite(item)) throw new RangeError("a number is too large for JSON");
      return item;
    });
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `main() returned a value that is not JSON: ${(error as Error).message}` };
  }
}

/**
 * Splits a child's stdout into lines, and into a run of raw bytes when asked to (the snapshot that
 * follows a "snapshot" message). Bytes are counted against a budget that each call resets: past
 * it, `overflow` is called once and nothing more is read.
 */
export class ProtocolReader {
  #pending: Buffer[] = [];
  #raw: { remaining: number; parts: Buffer[]; done: (bytes: Buffer) => void } | null = null;
  #budget = Number.POSITIVE_INFINITY;
  #used = 0;
  #overflowed = false;

  readonly #on: { line: (line: string) => void; overflow: () => void };

  constructor(on: { line: (line: string) => void; overflow: () => void }) {
    this.#on = on;
  }

  /** Counts from zero again against a new budget (a new call). */
  setBudget(maxBytes: number): void {
    this.#budget = maxBytes;
    this.#used = 0;
  }

  /** The next `count` bytes are raw data for `done`, not lines; call from within `line`. */
  expectBytes(count: number, done: (bytes: Buffer) => void): void {
    if (count === 0) done(Buffer.alloc(0));
    else this.#raw = { remaining: count, parts: [], done };
  }

  push(chunk: Buffer): void {
    if (this.#overflowed) return;
    this.#used += chunk.length;
    if (this.#used > this.#budget) {
      this.#overflowed = true;
      this.#on.overflow();
      return;
    }
    let rest = chunk;
    while (rest.length > 0 && !this.#overflowed) {
      const raw = this.#raw;
      if (raw) {
        const taken = rest.subarray(0, raw.remaining);
        raw.parts.push(taken);
        raw.remaining -= taken.length;
        rest = rest.subarray(taken.length);
        if (raw.remaining === 0) {
          this.#raw = null;
          raw.done(Buffer.concat(raw.parts));
        }
        continue;
      }
      const newline = rest.indexOf(10);
      if (newline === -1) {
        this.#pending.push(rest);
        return;
      }
      const line = Buffer.concat([...this.#pending, rest.subarray(0, newline)]).toString("utf8");
      this.#pending = [];
      rest = rest.subarray(newline + 1);
      this.#on.line(line);
    }
  }
}
