import { describe, expect, it } from "vitest";
import { reachableFrom, stateEdits } from "./fork-dialog";

describe("fork dialog", () => {
  it("sends only the state fields the person changed", () => {
    expect(stateEdits({ a: 1, b: [1], c: "x" }, { a: 1, b: [1, 2], c: "x", d: null })).toEqual({ b: [1, 2], d: null });
  });

  it("lists as part of the fork the nodes reachable from the ones it runs next, a loop back included", () => {
    const edges = [
      { source: "start", target: "llm" },
      { source: "llm", target: "code" },
      { source: "code", target: "check" },
      { source: "check", target: "code" },
      { source: "check", target: "mail" },
    ];
    expect([...reachableFrom(["code"], edges)].sort()).toEqual(["check", "code", "mail"]);
    expect(reachableFrom(["mail"], edges)).toEqual(new Set(["mail"]));
  });
});
