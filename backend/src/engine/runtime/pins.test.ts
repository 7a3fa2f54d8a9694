// Pinned outputs in the engine: a pinned node's executor is not called and its output is its
// update; pins name top-level nodes only (a node with the same id inside a Subgraph still runs);
// checkPins refuses each kind of bad pin before a run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalWorkflow,
  at,
  collect,
  edge,
  engineConfig,
  eventsOf,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import { checkPins } from "./pins.js";
import { prepareWorkflow } from "./prepare-workflow.js";
import { runStream } from "./runtime.js";

describe("pinned outputs in the engine", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ json: { path: request.path } }));
  });
  afterAll(() => receiver.close());

  const child = () => ({
    name: "child",
    state: [{ name: "y", type: "any" }],
    nodes: [httpTool("call", `${receiver.url}/inner`, "y")],
    edges: [edge("start", "call")],
  });
  const parent = () => ({
    name: "parent",
    state: [
      { name: "first", type: "any" },
      { name: "result", type: "any" },
    ],
    nodes: [
      httpTool("call", `${receiver.url}/outer`, "first"),
      {
        id: "sub",
        type: "subgraph",
        position: at,
        data: { workflow_id: "w0", version: 1, input: {}, output: { result: "y" } },
      },
    ],
    edges: [edge("start", "call"), edge("call", "sub")],
  });
  const resolveWorkflow = async (id: string, version: number) => (id === "w0" && version === 1 ? child() : undefined);

  it("uses a top-level pin instead of the node, and leaves a Subgraph's node of the same id alone", async () => {
    const before = receiver.requests.map((request) => request.path);
    const { events, outcome } = await collect(
      runStream(parent(), {}, { engine: engineConfig(), resolveWorkflow, pins: { call: { first: "pinned" } } }),
    );
    expect(outcome).toMatchObject({ status: "ok", state: { first: "pinned", result: { path: "/inner" } } });
    // Only the child's node was called.
    expect(receiver.requests.map((request) => request.path).slice(before.length)).toEqual(["/inner"]);
    const finished = eventsOf(events, "node_finished").map((event) => [event.node_id, event.data.pinned === true]);
    expect(finished).toEqual([
      ["call", true],
      ["sub/call", false],
      ["sub", false],
    ]);
  });

  it("refuses each kind of bad pin", async () => {
    const workflow = await prepareWorkflow(
      {
        name: "kinds",
        state: [
          { name: "n", type: "number" },
          { name: "items", type: "list" },
          { name: "notes", type: "list", reducer: "append" },
          { name: "results", type: "list" },
        ],
        nodes: [
          httpTool("tool", `${receiver.url}/t`, "n"),
          {
            id: "code",
            type: "code",
            position: at,
            data: { language: "javascript", code: "function main(){return {}}" },
          },
          {
            id: "each",
            type: "for_each",
            position: at,
            data: { items: "{{state.items}}", output_field: "results" },
          },
          httpTool("body", `${receiver.url}/b`, "results"),
        ],
        edges: [
          edge("start", "tool"),
          edge("tool", "code"),
          edge("code", "each"),
          edge("each", "body", "item"),
          edge("each", "end", "done"),
        ],
      },
      { engine: engineConfig() },
    );
    const code = (pins: Record<string, unknown>) => {
      try {
        checkPins(workflow, pins);
        return "accepted";
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(code({ tool: { n: 3 }, code: { notes: "one item", items: [1] } })).toBe("accepted");
    expect(code({ tool: { n: null } })).toBe("accepted");
    expect(code({ ghost: {} })).toBe("PIN_NODE_NOT_FOUND");
    expect(code({ each: { results: [] } })).toBe("PIN_NODE_NOT_PINNABLE");
    expect(code({ body: { results: [] } })).toBe("PIN_NODE_NOT_PINNABLE");
    expect(code({ end: {} })).toBe("PIN_NODE_NOT_PINNABLE");
    expect(code({ tool: { n: "three" } })).toBe("PIN_OUTPUT_INVALID");
    expect(code({ tool: { items: [] } })).toBe("PIN_OUTPUT_INVALID");
    expect(code({ tool: [1] })).toBe("PIN_OUTPUT_INVALID");
    expect(code({ code: { undeclared: 1 } })).toBe("PIN_OUTPUT_INVALID");
  });

  it("checks a Human node's pinned answer against its form, as a person's answer is", async () => {
    const workflow = await prepareWorkflow(approvalWorkflow({ field: "approved" }), { engine: engineConfig() });
    const refusal = (answer: unknown) => {
      try {
        checkPins(workflow, { ask: { answer } });
        return null;
      } catch (error) {
        const { code, details } = error as { code: string; details: { reason?: string; problems?: unknown } };
        return { code, reason: details.reason, problems: details.problems };
      }
    };
    expect(refusal({ approved: true })).toBeNull();
    expect(refusal({})).toEqual({
      code: "PIN_OUTPUT_INVALID",
      reason: "form",
      problems: [{ field: "approved", message: "is required" }],
    });
    expect(refusal({ approved: "yes" })).toMatchObject({ reason: "form", problems: [{ field: "approved" }] });
    expect(refusal({ approved: true, extra: 1 })).toMatchObject({ reason: "form", problems: [{ field: "extra" }] });
    expect(refusal("yes")).toMatchObject({ code: "PIN_OUTPUT_INVALID" });
  });
});
