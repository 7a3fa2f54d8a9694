// What a node writes must fit the state field it goes to, as a run's input must.
import { describe, expect, it } from "vitest";
import { collect, edge, engineConfig, eventsOf } from "../../../test/engine-harness.js";
import { runStream } from "../runtime/runtime.js";

function writer(field: { name: string; type: string; reducer?: string }, returned: string) {
  return {
    name: "writes",
    state: [field],
    nodes: [
      {
        id: "calc",
        type: "code",
        position: { x: 0, y: 0 },
        data: { language: "javascript", code: `function main() { return { ${field.name}: ${returned} }; }` },
      },
    ],
    edges: [edge("start", "calc")],
  };
}

describe("node outputs", () => {
  it.each([
    [{ name: "total", type: "number" }, '"not a number"', "a string", "a number"],
    [{ name: "title", type: "string" }, "42", "a number", "a string"],
    [{ name: "flag", type: "boolean" }, '"yes"', "a string", "a boolean"],
    [{ name: "rows", type: "list" }, "{}", "an object", "a list"],
    [{ name: "doc", type: "object" }, "[1]", "a list", "an object"],
    [{ name: "bag", type: "object", reducer: "merge" }, '"text"', "a string", "an object"],
    [{ name: "sum", type: "number", reducer: "add" }, '"5"', "a string", "a number"],
  ])("refuses %o getting %s, naming node, field and type", async (field, returned, got, expected) => {
    const { outcome, events } = await collect(runStream(writer(field, returned), {}, { engine: engineConfig() }));
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({
      code: "NODE_OUTPUT_INVALID",
      details: { node_id: "calc", field: field.name, type: field.type },
    });
    expect(outcome.error?.message).toContain(`"${field.name}"`);
    expect(outcome.error?.message).toContain(got.replace(/^an? /, ""));
    expect(outcome.error?.message).toContain(expected);
    expect(eventsOf(events, "node_finished", "calc")).toEqual([]);
    // Nothing was written: the field keeps its empty value (none, or the reducer's start).
    const reducer = "reducer" in field ? field.reducer : "replace";
    expect(outcome.state[field.name]).toEqual(({ merge: {}, add: 0 } as Record<string, unknown>)[reducer]);
  });

  it.each([
    [{ name: "total", type: "number" }, "7", 7],
    [{ name: "total", type: "number" }, "null", null],
    [{ name: "any", type: "any" }, '"anything"', "anything"],
    [{ name: "rows", type: "list", reducer: "append" }, '"one item"', ["one item"]],
    [{ name: "sum", type: "number", reducer: "add" }, "5", 5],
  ])("accepts %o getting %s", async (field, returned, value) => {
    const { outcome } = await collect(runStream(writer(field, returned), {}, { engine: engineConfig() }));
    expect(outcome.status).toBe("ok");
    expect(outcome.state[field.name]).toEqual(value);
  });
});
