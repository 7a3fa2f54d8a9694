import { describe, expect, it } from "vitest";
import {
  parseRunnerLine,
  RunnerLineMapper,
  readableValue,
  resumeValueOf,
  runnerError,
  safeNodeId,
} from "./runner-lines.js";

const mapper = () =>
  new RunnerLineMapper({
    nodeIds: new Map([
      ["step one", "step_one"],
      ["sub:inner", "sub_inner"],
    ]),
    maxEventBytes: 64 * 1024,
  });

describe("runner lines as studio events", () => {
  it("maps node_started and node_finished to the workflow's node ids, with superstep, output and iteration", () => {
    const lines = mapper();
    const started = lines.read(
      { type: "node_started", node: "step one", task_id: "t1", superstep: 1, namespace: [], input: { n: 1 } },
      1000,
    );
    expect(started.events).toEqual([
      {
        type: "node_started",
        node_id: "step_one",
        superstep: 1,
        data: { node_type: "code", iteration: "0", input: { n: 1 } },
      },
    ]);
    const finished = lines.read(
      { type: "node_finished", node: "step one", task_id: "t1", superstep: 1, status: "ok", output: { n: 2 } },
      1250,
    );
    expect(finished.events).toEqual([
      {
        type: "node_finished",
        node_id: "step_one",
        superstep: 1,
        data: { output: { n: 2 }, duration_ms: 250, reused: false, iteration: "0" },
      },
    ]);
    // A second visit of the same node is its next iteration.
    expect(
      lines.read({ type: "node_started", node: "step one", task_id: "t2", superstep: 3 }).events[0]?.data,
    ).toMatchObject({ iteration: "1" });
  });

  it("maps a subgraph's node through data.imported.node, and makes an unknown id safe", () => {
    const lines = mapper();
    expect(lines.read({ type: "node_started", node: "sub:inner", task_id: "t", superstep: 1 }).events[0]?.node_id).toBe(
      "sub_inner",
    );
    expect(lines.read({ type: "node_started", node: "other:x y", task_id: "u", superstep: 1 }).events[0]?.node_id).toBe(
      "other_x_y",
    );
    expect(safeNodeId("")).toBe("node");
  });

  it("cuts a large output in the event the way workflow runs do", () => {
    const lines = new RunnerLineMapper({ nodeIds: new Map(), maxEventBytes: 1024 });
    lines.read({ type: "node_started", node: "a", task_id: "t", superstep: 1 });
    const [event] = lines.read({
      type: "node_finished",
      node: "a",
      task_id: "t",
      status: "ok",
      output: "x".repeat(5000),
    }).events;
    expect(event?.data.output).toMatchObject({ truncated: true, bytes: 5002 });
  });

  it("keeps checkpoints and says when one is unavailable", () => {
    const lines = mapper();
    expect(lines.read({ type: "checkpoint", superstep: 2, thread_id: "r", checkpoint: { format: "f" } })).toEqual({
      events: [],
      checkpoint: { kind: "blob", superstep: 2, blob: { format: "f" } },
    });
    expect(lines.read({ type: "checkpoint_unavailable", superstep: 2, reason: "too big" }).checkpoint).toEqual({
      kind: "unavailable",
      reason: "too big",
    });
  });

  it("turns waiting into a Human request on the interrupted node with one required answer field", () => {
    const lines = mapper();
    lines.read({ type: "node_started", node: "step one", task_id: "t", superstep: 1 });
    expect(
      lines.read({ type: "node_finished", node: "step one", task_id: "t", superstep: 1, status: "interrupted" }).events,
    ).toEqual([]);
    lines.read({
      type: "waiting",
      interrupts: [{ id: "i", value: { question: "Ship it?" } }],
      next: ["step one"],
      state: { n: 1 },
    });
    expect(lines.ending).toEqual({
      kind: "waiting",
      state: { n: 1 },
      request: {
        node_id: "step_one",
        message: "Ship it?",
        fields: [{ name: "answer", type: "text", label: "Answer", required: true }],
        timeout_seconds: null,
      },
    });
  });

  it("ends finished with the final state", () => {
    const lines = mapper();
    lines.read({ type: "run_finished", superstep: 2, state: { n: 4 } });
    expect(lines.ending).toEqual({ kind: "finished", state: { n: 4 } });
  });

  it("reports a run error on the failed node as IMPORTED_GRAPH_FAILED with its details", () => {
    const lines = mapper();
    lines.read({ type: "node_started", node: "step one", task_id: "t", superstep: 1 });
    lines.read({ type: "node_finished", node: "step one", task_id: "t", superstep: 1, status: "error", error: "boom" });
    const { events } = lines.read({
      type: "error",
      phase: "run",
      kind: "exception",
      error_type: "ValueError",
      message: "boom",
      location: { file: "graph.py", line: 3, function: "one" },
      missing_env: ["OPTIONAL_KEY"],
    });
    expect(events).toEqual([
      {
        type: "error",
        node_id: "step_one",
        data: {
          error: {
            code: "IMPORTED_GRAPH_FAILED",
            message: "The imported graph failed: ValueError: boom",
            details: {
              phase: "run",
              error_type: "ValueError",
              message: "boom",
              location: { file: "graph.py", line: 3, function: "one" },
              missing_env: ["OPTIONAL_KEY"],
            },
          },
        },
      },
    ]);
    expect(lines.ending).toMatchObject({ kind: "failed", nodeId: "step_one" });
  });

  it("chooses the code by phase and kind: load failed, missing environment", () => {
    expect(runnerError({ type: "error", phase: "load", kind: "network", message: "tried the network" })).toMatchObject({
      code: "IMPORTED_GRAPH_LOAD_FAILED",
      details: { kind: "network" },
    });
    expect(
      runnerError({
        type: "error",
        phase: "run",
        kind: "missing_env",
        variables: ["C_KEY"],
        missing_env: ["A_KEY", "B", "C_KEY"],
      }),
    ).toMatchObject({ code: "IMPORTED_ENV_MISSING", details: { names: ["C_KEY", "A_KEY", "B"] } });
    expect(runnerError({ type: "error", phase: "load", kind: "missing_env", missing_env: ["B_TOKEN"] })).toMatchObject({
      code: "IMPORTED_ENV_MISSING",
      details: { names: ["B_TOKEN"] },
    });
    expect(runnerError({ type: "error", phase: "usage", kind: "usage", message: "bad" }).code).toBe(
      "IMPORTED_GRAPH_FAILED",
    );
  });

  it("reads only JSON objects with a type", () => {
    expect(parseRunnerLine('{"type":"run_started"}')).toEqual({ type: "run_started" });
    expect(parseRunnerLine("hello")).toBeNull();
    expect(parseRunnerLine("[1]")).toBeNull();
    expect(parseRunnerLine('{"no":"type"}')).toBeNull();
  });

  it("shows interrupt values as text and reads an answer as JSON when it parses", () => {
    expect(readableValue("Name?")).toBe("Name?");
    expect(readableValue({ message: "Approve?" })).toBe("Approve?");
    expect(readableValue([1, 2])).toBe("[\n  1,\n  2\n]");
    expect(resumeValueOf({ answer: "yes" })).toBe("yes");
    expect(resumeValueOf({ answer: '{"ok": true}' })).toEqual({ ok: true });
    expect(resumeValueOf({ answer: "42" })).toBe(42);
  });
});
