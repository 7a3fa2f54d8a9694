import { describe, expect, it } from "vitest";
import type { SandboxPaths } from "../sandbox/import-sandbox.js";
import { inspectableId, inspectCommand, loadedSummary, readInspectLine } from "./graph-inspection.js";

const paths: SandboxPaths = { job: "/job", runner: "/opt/r/runner.py", pipCache: "/c", wheels: null, basePython: "py" };

describe("graph inspection", () => {
  it("runs runner.py inspect with the venv's python over every graph, ids with spaces as they are", () => {
    expect(
      inspectCommand(paths, "/job/src", [
        { id: "agent", spec: "./a.py:graph" },
        { id: "react agent", spec: "pkg.mod:graph" },
      ]),
    ).toEqual([
      "/job/venv/bin/python",
      "/opt/r/runner.py",
      "inspect",
      "--root",
      "/job/src",
      "--graph",
      "agent=./a.py:graph",
      "--graph",
      "react agent=pkg.mod:graph",
    ]);
    expect(inspectableId("a=b")).toBe(false);
  });

  it("summarises a graph line", () => {
    const read = readInspectLine(
      JSON.stringify({
        type: "graph",
        id: "g",
        name: null,
        nodes: [{ id: "__start__" }, { id: "a" }],
        edges: [
          { source: "__start__", target: "a", conditional: false, label: null },
          { source: "a", target: "a", conditional: true, label: "again" },
        ],
        subgraphs: [{ id: "s", nodes: [] }],
        context_schema: null,
      }),
    );
    expect(read?.kind).toBe("graph");
    if (read?.kind !== "graph") return;
    expect(loadedSummary("g", read.line)).toEqual({
      ok: true,
      name: "g",
      nodes: 2,
      edges: 2,
      conditional_edges: 1,
      subgraphs: ["s"],
      context_schema: null,
    });
  });

  it("reads a graph_error line into the inspected contract, fields it does not know put right", () => {
    const read = readInspectLine(
      JSON.stringify({
        type: "graph_error",
        id: "g",
        kind: "made-up",
        stage: "build",
        error_type: "KeyError",
        message: "missing environment variable X: 'X'",
        variables: ["X"],
        location: { file: "a.py", line: 3, function: "make" },
        missing_env: [],
      }),
    );
    expect(read).toMatchObject({
      kind: "error",
      id: "g",
      inspected: {
        ok: false,
        kind: "exception",
        stage: "build",
        error_type: "KeyError",
        message: "missing environment variable X: 'X'",
        variables: ["X"],
        location: { file: "a.py", line: 3, function: "make" },
      },
    });
  });

  it("ignores what is not a graph's line", () => {
    expect(readInspectLine("not json")).toBeNull();
    expect(readInspectLine('{"type":"run_started"}')).toBeNull();
    expect(readInspectLine('{"type":"graph","id":"g","nodes":"many","edges":[]}')).toBeNull();
  });
});
