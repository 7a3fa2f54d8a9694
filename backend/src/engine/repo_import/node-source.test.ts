import { describe, expect, it } from "vitest";
import { MAX_SOURCE_LINES, sourceBlock } from "./node-source.js";

const FILE = [
  "import os", //1
  "", //2
  "@traceable(name='x',", //3
  "           tags=['a'])", //4
  "async def call_model(", //5
  "    state: dict,", //6
  ") -> dict:", //7
  '    """Calls the model.', //8
  "", //9
  'def not_the_end(): pass"""', //10
  "    if state:", //11
  "        return {'a': 1}", //12
  "", //13
  "    return {}", //14
  "", //15
  "", //16
  "graph = builder.add_node('x', lambda s: (", //17
  "    s))", //18
  "class Tools:", //19
  "    def run(self, state):", //20
  "        return state", //21
  "", //22
  "    def other(self):", //23
  "        pass", //24
].join("\n");

describe("node source", () => {
  it("takes decorators, a header over several lines and the body, strings and blank lines included", () => {
    expect(sourceBlock(FILE, 3)?.split("\n")).toEqual(FILE.split("\n").slice(2, 14));
  });

  it("takes the statement alone when the line is not a definition", () => {
    expect(sourceBlock(FILE, 17)).toBe("graph = builder.add_node('x', lambda s: (\n    s))");
  });

  it("takes a method without its class's indentation, and stops at the next method", () => {
    expect(sourceBlock(FILE, 20)).toBe("def run(self, state):\n    return state");
  });

  it(`cuts a block at ${MAX_SOURCE_LINES} lines and says so`, () => {
    const long = ["def big():", ...Array.from({ length: 300 }, (_, i) => `    x${i} = ${i}`)].join("\n");
    const block = sourceBlock(long, 1)?.split("\n") ?? [];
    expect(block).toHaveLength(MAX_SOURCE_LINES + 1);
    expect(block.at(-1)).toBe(`# … cut at ${MAX_SOURCE_LINES} lines`);
  });

  it("answers null for a line outside the file or a blank one", () => {
    expect(sourceBlock(FILE, 0)).toBeNull();
    expect(sourceBlock(FILE, 99)).toBeNull();
    expect(sourceBlock(FILE, 2)).toBeNull();
  });
});
