import { describe, expect, it } from "vitest";
import { canonicalJson, contentHash } from "./canonical-json.js";

describe("canonical JSON", () => {
  it("gives equal text and hash for objects that differ only in key order", () => {
    const a = { name: "x", nodes: [{ id: "n1", data: { b: 1, a: [1, { d: 2, c: 3 }] } }] };
    const b = { nodes: [{ data: { a: [1, { c: 3, d: 2 }], b: 1 }, id: "n1" }], name: "x" };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(contentHash(a)).toBe(contentHash(b));
  });

  it("tells apart values that differ, including array order", () => {
    expect(contentHash({ a: [1, 2] })).not.toBe(contentHash({ a: [2, 1] }));
    expect(contentHash({ a: "1" })).not.toBe(contentHash({ a: 1 }));
  });

  it("drops undefined members like JSON.stringify does", () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });
});
