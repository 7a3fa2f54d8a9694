import { describe, expect, it } from "vitest";
import { LineSplitter } from "./line-splitter.js";

function split(chunks: Buffer[], maxBytes?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), maxBytes);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe("LineSplitter", () => {
  it("gives each line without its newline, a partial last line at the end, and empty lines", () => {
    expect(split([Buffer.from("one\ntw"), Buffer.from("o\n\nthree")])).toEqual(["one", "two", "", "three"]);
  });

  it("keeps a character whole when a chunk ends inside it", () => {
    const bytes = Buffer.from("ấn\n", "utf8");
    expect(split([bytes.subarray(0, 2), bytes.subarray(2)])).toEqual(["ấn"]);
  });

  it("cuts a line at the limit and drops its rest up to the next newline", () => {
    expect(split([Buffer.from("abcdefgh"), Buffer.from("ij\nok\n")], 4)).toEqual(["abcd", "ok"]);
  });

  it("gives nothing for output that ended with its newline", () => {
    expect(split([Buffer.from("a\n")])).toEqual(["a"]);
    expect(split([])).toEqual([]);
  });
});
