import { describe, expect, it } from "vitest";
import { parseMessage, parseResultValue } from "./child-messages.js";

describe("child messages", () => {
  it("accepts the protocol's messages", () => {
    expect(parseMessage('{"type":"started"}')).toEqual({ type: "started" });
    expect(parseMessage('{"type":"log","line":"hi"}')).toEqual({ type: "log", line: "hi" });
    expect(parseMessage('{"type":"result","ok":true}')).toEqual({ type: "result", ok: true });
    expect(parseMessage('{"type":"result","ok":false,"code":"CODE_TIMEOUT","message":"slow"}')).toEqual({
      type: "result",
      ok: false,
      code: "CODE_TIMEOUT",
      message: "slow",
    });
  });

  it("shortens a huge error message", () => {
    const line = JSON.stringify({ type: "result", ok: false, code: "CODE_ERROR", message: "x".repeat(10_000) });
    expect(parseMessage(line)).toMatchObject({ message: "x".repeat(2000) });
  });

  it("refuses anything else, including codes outside the sandbox's four", () => {
    for (const line of [
      "",
      "not json",
      "null",
      "[]",
      '{"type":"log","line":1}',
      '{"type":"result","ok":false,"code":"INTERNAL"}',
    ]) {
      expect(parseMessage(line)).toBeNull();
    }
  });

  it("parses the result value and refuses numbers beyond a double", () => {
    expect(parseResultValue('{"a":[1,"x",null]}')).toEqual({ ok: true, value: { a: [1, "x", null] } });
    expect(parseResultValue(`[${"9".repeat(400)}]`)).toEqual({
      ok: false,
      message: "main() returned a value that is not JSON: a number is too large for JSON",
    });
    expect(parseResultValue("{oops").ok).toBe(false);
  });
});
