import { MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  at,
  collect,
  conditionNode,
  edge,
  engineConfig,
  eventsOf,
  type Gate,
  httpTool,
  type Receiver,
  startGate,
  startReceiver,
} from "../../../test/engine-harness.js";
import { AppError } from "../../core/errors.js";
import { MemoryResultLedger } from "./ports.js";
import { runStream } from "./runtime.js";

let receiver: Receiver;
beforeAll(async () => {
  // Answers with the number in ?value= when there is one, otherwise echoes.
  receiver = await startReceiver((request, n) => {
    const value = new URL(request.path, "http://x").searchParams.get("value");
    if (value !== null) return { json: JSON.parse(value) };
    if (request.path.startsWith("/big")) return { json: { big: "x".repeat(5000) } };
    return { json: { path: request.path, body: request.body, n } };
  });
});
afterAll(() => receiver.close());

const engine = engineConfig();

describe("runtime", () => {
  it("streams run_started, node events and run_finished with per-run seq and supersteps", async () => {
    const document = {
      name: "chain",
      state: [
        { name: "a", type: "any" },
        { name: "b", type: "any" },
      ],
      nodes: [
        httpTool("t1", `${receiver.url}/one`, "a"),
        httpTool("t2", `${receiver.url}/two`, "b", { body: { got: "{{state.a.path}}" } }),
      ],
      edges: [edge("start", "t1"), edge("t1", "t2"), edge("t2", "end")],
    };
    const { events, outcome } = await collect(runStream(document, {}, { engine, runId: "run-chain" }));
    expect(events.map((e) => [e.type, e.node_id])).toEqual([
      ["run_started", undefined],
      ["node_started", "t1"],
      ["node_finished", "t1"],
      ["node_started", "t2"],
      ["node_finished", "t2"],
      ["run_finished", undefined],
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.every((e) => e.run_id === "run-chain" && !Number.isNaN(Date.parse(e.ts)))).toBe(true);
    expect(eventsOf(events, "node_finished", "t1")[0]?.superstep).toBe(1);
    expect(eventsOf(events, "node_finished", "t2")[0]?.superstep).toBe(2);
    expect(eventsOf(events, "node_finished", "t2")[0]?.data).toMatchObject({
      reused: false,
      output: { b: { body: { got: "/one" } } },
    });
    expect(outcome).toMatchObject({ status: "ok", supersteps: 2 });
    expect(outcome.state.b).toMatchObject({ path: "/two", body: { got: "/one" } });
  });

  it("sends the idempotency headers, one key per run, node and iteration", async () => {
    const before = receiver.requests.length;
    const document = {
      name: "headers",
      state: [{ name: "a", type: "any" }],
      nodes: [httpTool("t1", `${receiver.url}/h`, "a")],
      edges: [edge("start", "t1")],
    };
    await collect(runStream(document, {}, { engine, runId: "run-h", attempt: 3 }));
    const request = receiver.requests[before];
    expect(request?.headers).toMatchObject({
      "idempotency-key": "run-h:t1:0",
      "x-studio-run-id": "run-h",
      "x-studio-attempt": "3",
    });
  });

  it("reuses a finished result from the ledger instead of calling again", async () => {
    const ledger = new MemoryResultLedger();
    await ledger.put("run-l:t1:0", { update: { a: "from the ledger" } });
    const before = receiver.requests.length;
    const document = {
      name: "ledger",
      state: [{ name: "a", type: "any" }],
      nodes: [httpTool("t1", `${receiver.url}/never`, "a")],
      edges: [edge("start", "t1")],
    };
    const { events, outcome } = await collect(runStream(document, {}, { engine, runId: "run-l", ledger }));
    expect(receiver.requests.length).toBe(before);
    expect(eventsOf(events, "node_finished", "t1")[0]?.data).toMatchObject({ reused: true });
    expect(outcome.state.a).toBe("from the ledger");
  });

  it("routes a Condition by its rules and records the chosen label", async () => {
    const document = {
      name: "route",
      state: [
        { name: "score", type: "number" },
        { name: "out", type: "any" },
      ],
      nodes: [
        conditionNode("k", "high", { field: "score", operator: "gte", value: 10 }, "low"),
        httpTool("hi", `${receiver.url}/high`, "out"),
        httpTool("lo", `${receiver.url}/low`, "out"),
      ],
      edges: [edge("start", "k"), edge("k", "hi", "high"), edge("k", "lo", "low")],
    };
    const high = await collect(runStream(document, { score: 12 }, { engine }));
    expect(eventsOf(high.events, "node_finished", "k")[0]?.data.route).toBe("high");
    expect((high.outcome.state.out as { path: string }).path).toBe("/high");
    const low = await collect(runStream(document, { score: 3 }, { engine }));
    expect((low.outcome.state.out as { path: string }).path).toBe("/low");
    expect(eventsOf(low.events, "node_started", "hi")).toEqual([]);
  });

  describe("parallel branches and reducers", () => {
    const parallel = (type: string, reducer: string, urls: [string, string]) => ({
      name: `parallel ${reducer}`,
      state: [{ name: "acc", type, reducer }],
      nodes: [httpTool("p1", urls[0], "acc"), httpTool("p2", urls[1], "acc")],
      edges: [edge("start", "p1"), edge("start", "p2")],
    });

    it("appends both results, in a fixed order", async () => {
      const { outcome, events } = await collect(
        runStream(
          parallel("list", "append", [`${receiver.url}/?value="a"`, `${receiver.url}/?value="b"`]),
          {},
          { engine },
        ),
      );
      expect(outcome.state.acc).toEqual(["a", "b"]);
      expect(eventsOf(events, "node_finished").every((e) => e.superstep === 1)).toBe(true);
    });

    it("merges objects", async () => {
      const { outcome } = await collect(
        runStream(
          parallel("object", "merge", [`${receiver.url}/?value={"x":1}`, `${receiver.url}/?value={"y":2}`]),
          {},
          { engine },
        ),
      );
      expect(outcome.state.acc).toEqual({ x: 1, y: 2 });
    });

    it("adds numbers", async () => {
      const { outcome } = await collect(
        runStream(parallel("number", "add", [`${receiver.url}/?value=2`, `${receiver.url}/?value=40`]), {}, { engine }),
      );
      expect(outcome.state.acc).toBe(42);
    });

    it("refuses a replace field written in parallel before running", async () => {
      const run = runStream(parallel("any", "replace", [`${receiver.url}/a`, `${receiver.url}/b`]), {}, { engine });
      await expect(run.next()).rejects.toMatchObject({
        code: "WORKFLOW_INVALID",
        details: [expect.objectContaining({ code: "PARALLEL_WRITE_NEEDS_REDUCER" })],
      });
    });
  });

  describe("join", () => {
    it("runs once after uneven branches", async () => {
      const document = {
        name: "uneven",
        state: [{ name: "log", type: "list", reducer: "append" }],
        nodes: [
          httpTool("a1", `${receiver.url}/?value="a1"`, "log"),
          httpTool("a2", `${receiver.url}/?value="a2"`, "log"),
          httpTool("a3", `${receiver.url}/?value="a3"`, "log"),
          httpTool("b1", `${receiver.url}/?value="b1"`, "log"),
          { id: "j", type: "join", position: at, data: {} },
          httpTool("after", `${receiver.url}/?value="after"`, "log"),
        ],
        edges: [
          edge("start", "a1"),
          edge("a1", "a2"),
          edge("a2", "a3"),
          edge("start", "b1"),
          edge("a3", "j"),
          edge("b1", "j"),
          edge("j", "after"),
        ],
      };
      const { events, outcome } = await collect(runStream(document, {}, { engine }));
      expect(eventsOf(events, "node_started", "j")).toHaveLength(1);
      expect(outcome.state.log).toEqual(["a1", "b1", "a2", "a3", "after"]);
      const joinStep = eventsOf(events, "node_finished", "j")[0]?.superstep as number;
      expect(joinStep).toBeGreaterThan(eventsOf(events, "node_finished", "a3")[0]?.superstep as number);
    });

    it("still runs when a condition skipped one of its branches", async () => {
      const document = {
        name: "skipped",
        state: [
          { name: "go", type: "boolean" },
          { name: "log", type: "list", reducer: "append" },
        ],
        nodes: [
          conditionNode("k", "yes", { field: "go", operator: "is_true" }, "no"),
          httpTool("y", `${receiver.url}/?value="y"`, "log"),
          httpTool("other", `${receiver.url}/?value="other"`, "log"),
          { id: "j", type: "join", position: at, data: {} },
          httpTool("after", `${receiver.url}/?value="after"`, "log"),
        ],
        edges: [
          edge("start", "k"),
          edge("start", "other"),
          edge("k", "y", "yes"),
          edge("k", "j", "no"),
          edge("y", "j"),
          edge("other", "j"),
          edge("j", "after"),
        ],
      };
      const { events, outcome } = await collect(runStream(document, { go: false }, { engine }));
      expect(eventsOf(events, "node_started", "y")).toEqual([]);
      expect(eventsOf(events, "node_started", "j")).toHaveLength(1);
      expect(outcome.state.log).toEqual(["other", "after"]);
    });
  });

  describe("for each", () => {
    const forEach = () => ({
      name: "for each",
      state: [
        { name: "items", type: "list" },
        { name: "results", type: "list" },
        { name: "after", type: "any" },
        // The body's own output field must be declared; its value is captured into `results`.
        { name: "ignored_by_capture", type: "any" },
      ],
      nodes: [
        { id: "fe", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "results" } },
        httpTool("body", `${receiver.url}/item`, "ignored_by_capture", {
          body: { item: "{{item}}", index: "{{index}}" },
        }),
        httpTool("done", `${receiver.url}/done`, "after", { body: { results: "{{state.results}}" } }),
      ],
      edges: [edge("start", "fe"), edge("fe", "body", "item"), edge("fe", "done", "done")],
    });

    it.each([0, 1, 100])("gathers the results of %i items in order, then continues along done", async (count) => {
      const items = Array.from({ length: count }, (_, i) => `item-${i}`);
      const { events, outcome } = await collect(runStream(forEach(), { items }, { engine, runId: `fe-${count}` }));
      expect(outcome.status).toBe("ok");
      const results = outcome.state.results as { body: { item: string; index: number } }[];
      expect(results.map((r) => r.body)).toEqual(items.map((item, index) => ({ item, index })));
      expect(eventsOf(events, "node_started", "done")).toHaveLength(1);
      expect((outcome.state.after as { body: { results: unknown[] } }).body.results).toHaveLength(count);
      expect(outcome.state.ignored_by_capture).toBeUndefined();
      const keys = receiver.requests
        .filter((r) => r.path === "/item" && String(r.headers["x-studio-run-id"]) === `fe-${count}`)
        .map((r) => r.headers["idempotency-key"]);
      expect(new Set(keys).size).toBe(count);
    });
  });

  describe("human", () => {
    const approval = {
      name: "approval",
      state: [{ name: "answer", type: "object" }],
      nodes: [
        {
          id: "ask",
          type: "human",
          position: at,
          data: {
            message: "Approve?",
            fields: [
              { name: "approved", type: "boolean", required: true },
              { name: "note", type: "string" },
            ],
            output_field: "answer",
            timeout_seconds: 60,
          },
        },
      ],
      edges: [edge("start", "ask"), edge("ask", "end")],
    };

    it("waits for a person, then continues with the answer", async () => {
      const checkpointer = new MemorySaver();
      const first = await collect(runStream(approval, {}, { engine, runId: "h1", checkpointer }));
      expect(first.outcome.status).toBe("waiting");
      expect(first.outcome.waiting).toMatchObject({ node_id: "ask", message: "Approve?" });
      expect(Date.parse(first.outcome.waiting?.expires_at as string)).toBeGreaterThan(Date.now());
      expect(first.events.at(-1)?.type).toBe("run_waiting");

      const second = await collect(
        runStream(approval, null, {
          engine,
          runId: "h1",
          checkpointer,
          resume: { kind: "human", input: { approved: true, note: "ok" } },
          firstSeq: first.outcome.nextSeq,
        }),
      );
      expect(second.events[0]?.seq).toBe(first.outcome.nextSeq);
      expect(second.outcome).toMatchObject({ status: "ok", state: { answer: { approved: true, note: "ok" } } });
    });

    it("expires instead of resuming when the answer comes after the timeout", async () => {
      const checkpointer = new MemorySaver();
      const first = await collect(runStream(approval, {}, { engine, runId: "h-late", checkpointer }));
      expect(first.outcome.status).toBe("waiting");
      // The answer comes a minute and a second later, by the clock (only Date is faked).
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 61_000);
      const late = await collect(
        runStream(approval, null, {
          engine,
          runId: "h-late",
          checkpointer,
          resume: { kind: "human", input: { approved: true } },
        }),
      ).finally(() => vi.useRealTimers());
      expect(late.outcome.status).toBe("expired");
      expect(late.outcome.error?.code).toBe("HUMAN_WAIT_EXPIRED");
      expect(late.events.at(-1)).toMatchObject({ type: "run_finished", data: { status: "expired" } });
      expect(late.outcome.state.answer).toBeUndefined();
    });

    it("fails the node when the answer does not fit the form", async () => {
      const checkpointer = new MemorySaver();
      await collect(runStream(approval, {}, { engine, runId: "h2", checkpointer }));
      const bad = await collect(
        runStream(approval, null, {
          engine,
          runId: "h2",
          checkpointer,
          resume: { kind: "human", input: { approved: "yes", extra: 1 } },
        }),
      );
      expect(bad.outcome.status).toBe("error");
      expect(bad.outcome.error?.code).toBe("HUMAN_INPUT_INVALID");
    });
  });

  it("runs one superstep at a time in step mode, pausing in between", async () => {
    const checkpointer = new MemorySaver();
    const document = {
      name: "steps",
      state: [{ name: "log", type: "list", reducer: "append" }],
      nodes: ["s1", "s2", "s3"].map((id) => httpTool(id, `${receiver.url}/?value="${id}"`, "log")),
      edges: [edge("start", "s1"), edge("s1", "s2"), edge("s2", "s3")],
    };
    const statuses: string[] = [];
    let outcome = (await collect(runStream(document, {}, { engine, runId: "step", checkpointer, mode: "step" })))
      .outcome;
    statuses.push(outcome.status);
    while (outcome.status === "paused") {
      outcome = (
        await collect(
          runStream(document, null, {
            engine,
            runId: "step",
            checkpointer,
            mode: "step",
            resume: { kind: "continue" },
          }),
        )
      ).outcome;
      statuses.push(outcome.status);
    }
    // Three supersteps: paused after the first two, finished after the last.
    expect(statuses).toEqual(["paused", "paused", "ok"]);
    expect(outcome.state.log).toEqual(["s1", "s2", "s3"]);
  });

  describe("limits", () => {
    // A call the gate never answers: only the abort or the run timeout can end these runs.
    let gate: Gate;
    beforeAll(async () => {
      gate = await startGate();
    });
    afterAll(() => gate.close());
    const held = (name: string) => ({
      name,
      state: [{ name: "a", type: "any" }],
      nodes: [httpTool("t", `${gate.url}/${name}`, "a", { timeout_ms: 300_000 })],
      edges: [edge("start", "t")],
    });

    it("ends as cancelled when the signal aborts, even in the middle of a call", async () => {
      const controller = new AbortController();
      const arrived = gate.arrived(gate.arrivals.length + 1);
      const run = collect(runStream(held("cancel"), {}, { engine, signal: controller.signal }));
      await arrived;
      controller.abort();
      const { events, outcome } = await run;
      expect(outcome.status).toBe("cancelled");
      expect(outcome.error?.code).toBe("RUN_CANCELLED");
      expect(events.at(-1)).toMatchObject({ type: "run_finished", data: { status: "cancelled" } });
    });

    it("ends as timeout after STUDIO_RUN_TIMEOUT", async () => {
      const { outcome } = await collect(
        runStream(held("timeout"), {}, { engine: engineConfig({ runTimeoutMs: 300 }) }),
      );
      expect(outcome.status).toBe("timeout");
      expect(outcome.error?.code).toBe("RUN_TIMEOUT");
    });

    it("stops an endless loop at the superstep limit", async () => {
      const loop = {
        name: "loop",
        state: [{ name: "a", type: "any" }],
        nodes: [
          httpTool("t", `${receiver.url}/loop`, "a"),
          { id: "k", type: "condition", position: at, data: { rules: [], default_label: "again" } },
        ],
        edges: [edge("start", "t"), edge("t", "k"), edge("k", "t", "again")],
      };
      const { outcome } = await collect(runStream(loop, {}, { engine: engineConfig({ maxSupersteps: 6 }) }));
      expect(outcome.status).toBe("error");
      expect(outcome.error?.code).toBe("MAX_SUPERSTEPS");
    });

    it("truncates a large node output in its event, with a marker", async () => {
      const document = {
        name: "big",
        state: [{ name: "a", type: "any" }],
        nodes: [httpTool("t", `${receiver.url}/big`, "a")],
        edges: [edge("start", "t")],
      };
      const { events, outcome } = await collect(
        runStream(document, {}, { engine: engineConfig({ maxEventBytes: 1024 }) }),
      );
      expect(eventsOf(events, "node_finished", "t")[0]?.data.output).toMatchObject({ truncated: true });
      expect((outcome.state.a as { big: string }).big).toHaveLength(5000);
    });

    it("fails a run whose state grows past the limit", async () => {
      const document = {
        name: "huge state",
        state: [{ name: "a", type: "any" }],
        nodes: [httpTool("t", `${receiver.url}/big`, "a")],
        edges: [edge("start", "t")],
      };
      const { outcome } = await collect(runStream(document, {}, { engine: engineConfig({ maxStateBytes: 2048 }) }));
      expect(outcome.status).toBe("error");
      expect(outcome.error?.code).toBe("STATE_TOO_LARGE");
    });
  });

  describe("bad input", () => {
    const simple = () => ({
      name: "simple",
      state: [{ name: "a", type: "string" }],
      nodes: [httpTool("t", `${receiver.url}/x`, "a")],
      edges: [edge("start", "t")],
    });

    it.each([
      ["an unknown field", { nope: 1 }],
      ["a wrong type", { a: 5 }],
      ["a __proto__ key", JSON.parse('{"__proto__": {"polluted": true}}')],
      ["a list instead of an object", [1, 2]],
    ])("refuses %s with RUN_INPUT_INVALID before any event", async (_name, input) => {
      const run = runStream(simple(), input, { engine });
      const error = await run.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("RUN_INPUT_INVALID");
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it("keeps __proto__ keys from a tool's answer as plain data, polluting nothing", async () => {
      // Served as JSON, so the tool parses it: an object with an own "__proto__" key. (A merge
      // field takes objects only; a text answer would now fail the node with NODE_OUTPUT_INVALID.)
      const hostile = await startReceiver(() => ({
        json: JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
      }));
      try {
        const document = {
          name: "hostile",
          state: [
            { name: "r", type: "any" },
            { name: "m", type: "object", reducer: "merge" },
            { name: "echo", type: "any" },
          ],
          nodes: [
            httpTool("t", `${hostile.url}/x`, "r", { headers: { accept: "application/json" } }),
            httpTool("u", `${hostile.url}/y`, "m"),
            httpTool("v", `${receiver.url}/echo`, "echo", {
              body: { seen: "{{state.r}}", deep: "{{state.m.__proto__.polluted}}" },
            }),
          ],
          edges: [edge("start", "t"), edge("t", "u"), edge("u", "v")],
        };
        const { outcome } = await collect(runStream(document, {}, { engine }));
        expect(outcome.status).toBe("ok");
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.getPrototypeOf(outcome.state.m)).toBe(Object.prototype);
      } finally {
        await hostile.close();
      }
    });

    it("refuses an invalid workflow with every problem listed", async () => {
      const run = runStream({ ...simple(), edges: [edge("start", "ghost")] }, {}, { engine });
      await expect(run.next()).rejects.toMatchObject({ code: "WORKFLOW_INVALID" });
    });
  });
});
