// A Join runs exactly once per arrival of all its inputs, however Joins nest, chain or follow a
// For each, and the nodes after it (with their side effects) run once too.
import { MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  at,
  collect,
  conditionNode,
  edge,
  engineConfig,
  eventsOf,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import type { StudioEvent } from "../runtime/events.js";
import { runStream } from "../runtime/runtime.js";

const LOG = { name: "log", type: "list", reducer: "append" } as const;
const join = (id: string) => ({ id, type: "join", position: at, data: {} });

/** A chain of `length` HTTP nodes named prefix1..prefixN, each appending its name to `log`. */
function chain(receiver: Receiver, prefix: string, length: number) {
  const ids = Array.from({ length }, (_, i) => `${prefix}${i + 1}`);
  return {
    ids,
    nodes: ids.map((id) => httpTool(id, `${receiver.url}/?value="${id}"`, "log")),
    edges: ids.slice(1).map((id, i) => edge(ids[i] as string, id)),
  };
}

function starts(events: StudioEvent[], id: string): number {
  return eventsOf(events, "node_started", id).length;
}

describe("joins", () => {
  let receiver: Receiver;
  const engine = engineConfig();
  beforeAll(async () => {
    receiver = await startReceiver((request) => {
      const value = new URL(request.path, "http://x").searchParams.get("value");
      return { json: value === null ? null : JSON.parse(value) };
    });
  });
  afterAll(() => receiver.close());

  const hits = (runId: string, value: string) =>
    receiver.requests.filter(
      (r) => r.headers["x-studio-run-id"] === runId && r.path.includes(encodeURIComponent(`"${value}"`)),
    ).length;

  it("runs a Join fed by another Join once, and what follows it once (the reported case)", async () => {
    const document = {
      name: "nested",
      state: [LOG],
      nodes: [
        ...chain(receiver, "a", 1).nodes,
        ...chain(receiver, "b", 1).nodes,
        ...chain(receiver, "c", 1).nodes,
        join("joinA"),
        join("joinB"),
        httpTool("after", `${receiver.url}/?value="after"`, "log"),
      ],
      edges: [
        edge("start", "a1"),
        edge("start", "b1"),
        edge("start", "c1"),
        edge("a1", "joinA"),
        edge("b1", "joinA"),
        edge("joinA", "joinB"),
        edge("c1", "joinB"),
        edge("joinB", "after"),
      ],
    };
    const { events, outcome } = await collect(runStream(document, {}, { engine, runId: "nested" }));
    expect(outcome.status).toBe("ok");
    expect(starts(events, "joinA")).toBe(1);
    expect(starts(events, "joinB")).toBe(1);
    expect(starts(events, "after")).toBe(1);
    expect(hits("nested", "after")).toBe(1);
    expect(outcome.state.log).toEqual(["a1", "b1", "c1", "after"]);
  });

  it("runs a chain of Joins with branches of uneven length once each, in order", async () => {
    // start → x1..x4 → j1; start → y1 → j1; j1 → j2 ← z1..z3; j2 → j3 ← w1; j3 → after
    const x = chain(receiver, "x", 4);
    const y = chain(receiver, "y", 1);
    const z = chain(receiver, "z", 3);
    const w = chain(receiver, "w", 1);
    const document = {
      name: "chain",
      state: [LOG],
      nodes: [
        ...x.nodes,
        ...y.nodes,
        ...z.nodes,
        ...w.nodes,
        join("j1"),
        join("j2"),
        join("j3"),
        httpTool("after", `${receiver.url}/?value="after"`, "log"),
      ],
      edges: [
        ...x.edges,
        ...z.edges,
        edge("start", "x1"),
        edge("start", "y1"),
        edge("start", "z1"),
        edge("start", "w1"),
        edge("x4", "j1"),
        edge("y1", "j1"),
        edge("j1", "j2"),
        edge("z3", "j2"),
        edge("j2", "j3"),
        edge("w1", "j3"),
        edge("j3", "after"),
      ],
    };
    const { events, outcome } = await collect(runStream(document, {}, { engine, runId: "chain" }));
    expect(outcome.status).toBe("ok");
    for (const id of ["j1", "j2", "j3", "after"]) expect(starts(events, id), id).toBe(1);
    expect(hits("chain", "after")).toBe(1);
    const finished = (id: string) => eventsOf(events, "node_finished", id)[0]?.superstep as number;
    expect(finished("j1")).toBeLessThan(finished("j2"));
    expect(finished("j2")).toBeLessThan(finished("j3"));
    expect(finished("j1")).toBeGreaterThan(finished("x4"));
  });

  it("runs a tree of Joins over uneven branches once each", async () => {
    // left = join(p1..p3, q1); right = join(r1, s1..s2); top = join(left, right, t1..t5)
    const parts = { p: 3, q: 1, r: 1, s: 2, t: 5 } as const;
    const chains = Object.entries(parts).map(([prefix, length]) => chain(receiver, prefix, length));
    const last = (prefix: keyof typeof parts) => `${prefix}${parts[prefix]}`;
    const document = {
      name: "tree",
      state: [LOG],
      nodes: [
        ...chains.flatMap((c) => c.nodes),
        join("left"),
        join("right"),
        join("top"),
        httpTool("after", `${receiver.url}/?value="after"`, "log"),
      ],
      edges: [
        ...chains.flatMap((c) => c.edges),
        ...Object.keys(parts).map((prefix) => edge("start", `${prefix}1`)),
        edge(last("p"), "left"),
        edge(last("q"), "left"),
        edge(last("r"), "right"),
        edge(last("s"), "right"),
        edge("left", "top"),
        edge("right", "top"),
        edge(last("t"), "top"),
        edge("top", "after"),
      ],
    };
    const { events, outcome } = await collect(runStream(document, {}, { engine, runId: "tree" }));
    expect(outcome.status).toBe("ok");
    for (const id of ["left", "right", "top", "after"]) expect(starts(events, id), id).toBe(1);
    expect(hits("tree", "after")).toBe(1);
    expect((outcome.state.log as string[]).at(-1)).toBe("after");
  });

  it("waits for a For each before running, once, while its bodies run", async () => {
    const document = {
      name: "after for each",
      state: [
        { name: "items", type: "list" },
        { name: "results", type: "list" },
        { name: "scratch", type: "any" },
        LOG,
      ],
      nodes: [
        { id: "fe", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "results" } },
        httpTool("body", `${receiver.url}/?value="body"`, "scratch"),
        httpTool("side", `${receiver.url}/?value="side"`, "log"),
        join("j"),
        httpTool("after", `${receiver.url}/?value="after"`, "log"),
      ],
      edges: [
        edge("start", "fe"),
        edge("start", "side"),
        edge("fe", "body", "item"),
        edge("fe", "j", "done"),
        edge("side", "j"),
        edge("j", "after"),
      ],
    };
    const { events, outcome } = await collect(runStream(document, { items: [1, 2, 3] }, { engine, runId: "fe-join" }));
    expect(outcome.status).toBe("ok");
    expect(starts(events, "j")).toBe(1);
    expect(hits("fe-join", "after")).toBe(1);
    expect(outcome.state.results).toHaveLength(3);
    const jStep = eventsOf(events, "node_finished", "j")[0]?.superstep as number;
    for (const body of eventsOf(events, "node_finished", "body")) expect(body.superstep as number).toBeLessThan(jStep);
  });

  it("runs once per round inside a loop", async () => {
    const document = {
      name: "loop",
      state: [{ name: "n", type: "number", reducer: "add" }, LOG],
      nodes: [
        httpTool("left", `${receiver.url}/?value=1`, "n"),
        httpTool("right", `${receiver.url}/?value="r"`, "log"),
        join("j"),
        conditionNode("again", "more", { field: "n", operator: "lt", value: 3 }, "stop"),
        {
          id: "fan",
          type: "code",
          position: at,
          data: { language: "javascript", code: "function main() { return {}; }" },
        },
      ],
      edges: [
        edge("start", "fan"),
        edge("fan", "left"),
        edge("fan", "right"),
        edge("left", "j"),
        edge("right", "j"),
        edge("j", "again"),
        edge("again", "fan", "more"),
        edge("again", "end", "stop"),
      ],
    };
    const { events, outcome } = await collect(runStream(document, {}, { engine, runId: "join-loop" }));
    expect(outcome.status).toBe("ok");
    expect(outcome.state.n).toBe(3);
    expect(starts(events, "j")).toBe(3);
    expect(starts(events, "again")).toBe(3);
  });

  it("keeps its waiting state across a pause for a person", async () => {
    const document = {
      name: "human branch",
      state: [LOG, { name: "answer", type: "object" }],
      nodes: [
        ...chain(receiver, "a", 2).nodes,
        { id: "ask", type: "human", position: at, data: { message: "ok?", output_field: "answer" } },
        join("inner"),
        join("outer"),
        ...chain(receiver, "c", 1).nodes,
        httpTool("after", `${receiver.url}/?value="after"`, "log"),
      ],
      edges: [
        edge("start", "a1"),
        edge("a1", "a2"),
        edge("start", "ask"),
        edge("a2", "inner"),
        edge("ask", "inner"),
        edge("inner", "outer"),
        edge("start", "c1"),
        edge("c1", "outer"),
        edge("outer", "after"),
      ],
    };
    const checkpointer = new MemorySaver();
    const first = await collect(runStream(document, {}, { engine, checkpointer, runId: "join-human" }));
    expect(first.outcome.status).toBe("waiting");
    expect(starts(first.events, "outer")).toBe(0);
    const second = await collect(
      runStream(document, null, {
        engine,
        checkpointer,
        runId: "join-human",
        resume: { kind: "human", input: {} },
        firstSeq: first.outcome.nextSeq,
      }),
    );
    expect(second.outcome.status).toBe("ok");
    expect(starts(second.events, "inner")).toBe(1);
    expect(starts(second.events, "outer")).toBe(1);
    expect(hits("join-human", "after")).toBe(1);
  });
});
