// Node outputs are data: shapes LangGraph reads as commands elsewhere ({"__overwrite__": v},
// {"type": "__overwrite__", "value": v}) go through the field's reducer like any other value,
// before and after the run is restored from a checkpoint.
import { MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  at,
  collect,
  edge,
  engineConfig,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import { runStream } from "../runtime/runtime.js";

const FORGED: Record<string, unknown> = {
  "/list": { __overwrite__: ["replaced"] },
  "/object": { __overwrite__: { replaced: true } },
  "/number": { type: "__overwrite__", value: 1000 },
};

describe("state channels", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ json: FORGED[request.path] ?? null }));
  });
  afterAll(() => receiver.close());

  const document = (withPause: boolean) => ({
    name: "forged",
    state: [
      { name: "log", type: "list", reducer: "append", default: ["first"] },
      { name: "bag", type: "object", reducer: "merge", default: { kept: 1 } },
      { name: "count", type: "any", reducer: "append", default: [] },
      { name: "answer", type: "object" },
    ],
    nodes: [
      httpTool("a", `${receiver.url}/list`, "log", { method: "GET" }),
      httpTool("b", `${receiver.url}/object`, "bag", { method: "GET" }),
      httpTool("c", `${receiver.url}/number`, "count", { method: "GET" }),
      ...(withPause
        ? [{ id: "ask", type: "human", position: at, data: { message: "go on?", output_field: "answer" } }]
        : []),
      httpTool("d", `${receiver.url}/list`, "log", { method: "GET" }),
    ],
    edges: [
      edge("start", "a"),
      edge("a", "b"),
      edge("b", "c"),
      ...(withPause ? [edge("c", "ask"), edge("ask", "d")] : [edge("c", "d")]),
    ],
  });

  const expected = {
    log: ["first", { __overwrite__: ["replaced"] }, { __overwrite__: ["replaced"] }],
    bag: { kept: 1, __overwrite__: { replaced: true } },
    count: [{ type: "__overwrite__", value: 1000 }],
  };

  it("adds a forged overwrite to append and merge fields instead of obeying it", async () => {
    const { outcome } = await collect(runStream(document(false), {}, { engine: engineConfig() }));
    expect(outcome.status).toBe("ok");
    expect(outcome.state).toMatchObject(expected);
  });

  it("keeps reading writes as data after the run is restored from its checkpoint", async () => {
    const checkpointer = new MemorySaver();
    const engine = engineConfig();
    const first = await collect(runStream(document(true), {}, { engine, checkpointer, runId: "forged-resume" }));
    expect(first.outcome.status).toBe("waiting");
    const second = await collect(
      runStream(document(true), null, {
        engine,
        checkpointer,
        runId: "forged-resume",
        resume: { kind: "human", input: {} },
        firstSeq: first.outcome.nextSeq,
      }),
    );
    expect(second.outcome.status).toBe("ok");
    expect(second.outcome.state).toMatchObject(expected);
  });
});
