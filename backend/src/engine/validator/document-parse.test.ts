import { describe, expect, it } from "vitest";
import { workflowDocument } from "../../schemas/workflow.schema.js";
import { parseDocument } from "./document-parse.js";
import { TimeSlicer } from "./time-slicer.js";

const at = { x: 0, y: 0 };
const node = (id: string, extra: object = {}) => ({ id, type: "code", position: at, data: {}, ...extra });

describe("parsing a document in slices", () => {
  const documents: [string, unknown][] = [
    ["a valid document", { name: "ok", state: [{ name: "a", type: "string" }], nodes: [node("c")], edges: [] }],
    ["defaults filled in", { name: "empty" }],
    ["node data left out", { name: "x", nodes: [{ id: "c", type: "code", position: at }] }],
    [
      "a bad node among good ones",
      { name: "x", nodes: [node("a"), { id: "b", type: "nope", position: at }, node("c")] },
    ],
    ["bad elements in every array", { name: "", state: [{ name: "__x" }], nodes: [{}], edges: [{ id: "e" }] }],
    ["an unknown key", { name: "x", extra: true }],
    ["arrays of the wrong type", { name: "x", nodes: "n", edges: {}, state: 3 }],
    ["too many nodes", { name: "x", nodes: Array.from({ length: 2001 }, (_, i) => ({ id: `n${i}` })) }],
    ["too many edges and bad nodes", { name: "x", nodes: [{}], edges: Array.from({ length: 5001 }, () => ({})) }],
    ["not an object", [1, 2]],
    ["nothing", null],
    [
      "nested too deep",
      { name: "x", nodes: [node("c", { data: { deep: JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) } })] },
    ],
  ];

  it.each(documents)("answers %s as the whole schema does", async (_name, raw) => {
    const whole = workflowDocument.safeParse(raw);
    const sliced = await parseDocument(raw, new TimeSlicer(0));
    expect(sliced.success).toBe(whole.success);
    if (sliced.success && whole.success) expect(JSON.stringify(sliced.data)).toBe(JSON.stringify(whole.data));
    if (!sliced.success && !whole.success) {
      const key = (i: { path: PropertyKey[]; message: string }) => `${i.path.join(".")}: ${i.message}`;
      expect(sliced.issues.map(key).sort()).toEqual(whole.error.issues.map(key).sort());
    }
  });

  it("gives the event loop back between slices of a long array", async () => {
    const slicer = new TimeSlicer(0);
    const raw = { name: "x", nodes: Array.from({ length: 1000 }, (_, i) => node(`n${i}`)) };
    const parsed = await parseDocument(raw, slicer);
    expect(parsed.success).toBe(true);
    expect(slicer.pauses).toBe(20);
  });
});
