// The parent's reading of what a sandbox child writes on stdout (the protocol is described in
// sandbox-child.mjs). The child runs user code, so every line is validated, never trusted.

import type { ChildProcess } from "node:child_process";

export type FailureCode = "CODE_ERROR" | "CODE_TIMEOUT" | "CODE_MEMORY" | "CODE_RESULT_INVALID";

export type ChildMessage =
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

/** Splits the child's stdout into lines, giving up (overflow) past maxBytes in total. */
export function readLines(
  child: ChildProcess,
  maxBytes: number,
  on: { line: (line: string) => void; overflow: () => void },
): void {
  let pending: Buffer[] = [];
  let total = 0;
  child.stdout?.on("data", (chunk: Buffer) => {
    total += chunk.length;
    if (total > maxBytes) {
      on.overflow();
      return;
    }
    let rest = chunk;
    for (let newline = rest.indexOf(10); newline !== -1; newline = rest.indexOf(10)) {
      on.line(Buffer.concat([...pending, rest.subarray(0, newline)]).toString("utf8"));
      pending = [];
      rest = rest.subarray(newline + 1);
    }
    if (rest.length > 0) pending.push(rest);
  });
}
