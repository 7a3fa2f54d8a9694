import { describe, expect, it } from "vitest";
import type { GraphInspection, ImportGraph, ImportJob } from "@/lib/api";
import { createAction, inspectionView } from "./graph-inspection";

type Steps = ImportJob["steps"];
const step = (name: Steps[number]["name"], status: Steps[number]["status"]): Steps[number] => ({
  name,
  status,
  started_at: null,
  finished_at: null,
});

const graph = (inspected?: GraphInspection): ImportGraph => ({
  id: "agent",
  spec: "./src/agent/graph.py:graph",
  file: "src/agent/graph.py",
  module: null,
  variable: "graph",
  line: 20,
  origin: "langgraph.json",
  inspected: inspected ?? null,
});

const job = (status: ImportJob["status"], check: Steps[number]["status"]) => ({
  status,
  steps: [step("download", "done"), step("install", "done"), step("check", check), step("ready", "pending")],
  logs: [],
});

const loaded: GraphInspection = {
  ok: true,
  name: "LangGraph",
  nodes: 4,
  edges: 5,
  conditional_edges: 2,
  subgraphs: ["research"],
  context_schema: null,
};

const failed = (overrides: Partial<Extract<GraphInspection, { ok: false }>>): GraphInspection => ({
  ok: false,
  kind: "exception",
  stage: "build",
  error_type: "ValueError",
  message: "bad config",
  variables: [],
  location: { file: "src/agent/graph.py", line: 33, function: "make_graph" },
  ...overrides,
});

describe("inspectionView", () => {
  it("says 'checking' while the check step waits or runs and the graph has no result yet", () => {
    expect(inspectionView(graph(null), job("running", "running"))).toEqual({ kind: "checking" });
    expect(inspectionView(graph(null), job("running", "pending"))).toEqual({ kind: "checking" });
  });

  it("says 'unchecked' when the check step did not run for the graph (skipped, failed, or an older server)", () => {
    expect(inspectionView(graph(), job("succeeded", "skipped"))).toEqual({ kind: "unchecked" });
    expect(inspectionView(graph(null), job("failed", "failed"))).toEqual({ kind: "unchecked" });
    expect(inspectionView(graph(null), job("failed", "pending"))).toEqual({ kind: "unchecked" });
  });

  it("gives the counts and subgraphs of a graph that loaded", () => {
    expect(inspectionView(graph(loaded), job("succeeded", "done"))).toEqual({
      kind: "loaded",
      nodes: 4,
      edges: 5,
      conditionalEdges: 2,
      subgraphs: ["research"],
    });
  });

  it("names the cause of a load error with the exception, the stage and file:line (function)", () => {
    expect(inspectionView(graph(failed({})), job("succeeded", "done"))).toEqual({
      kind: "failed",
      cause: "exception",
      stage: "build",
      errorType: "ValueError",
      message: "bad config",
      variables: [],
      location: "src/agent/graph.py:33 (make_graph)",
    });
  });

  it("keeps the missing variables, and a location without function or none at all", () => {
    const missing = inspectionView(
      graph(
        failed({
          kind: "missing_env",
          stage: "import",
          error_type: "KeyError",
          variables: ["OPENAI_API_KEY", "TAVILY_API_KEY"],
          location: { file: "src/agent/llm.py", line: 4, function: null },
        }),
      ),
      job("succeeded", "done"),
    );
    expect(missing).toMatchObject({
      kind: "failed",
      cause: "missing_env",
      variables: ["OPENAI_API_KEY", "TAVILY_API_KEY"],
      location: "src/agent/llm.py:4",
    });
    const network = inspectionView(
      graph(failed({ kind: "network", stage: null, error_type: null, location: null })),
      job("succeeded", "done"),
    );
    expect(network).toMatchObject({ kind: "failed", cause: "network", stage: null, errorType: null, location: null });
  });
});

describe("createAction", () => {
  it("is enabled for a graph that loaded once the job succeeded", () => {
    expect(createAction(graph(loaded), { status: "succeeded" })).toBe("enabled");
  });

  it("waits while the job runs, and is unavailable once it failed or was interrupted", () => {
    expect(createAction(graph(loaded), { status: "running" })).toBe("waiting");
    expect(createAction(graph(loaded), { status: "failed" })).toBe("unavailable");
    expect(createAction(graph(loaded), { status: "interrupted" })).toBe("unavailable");
  });

  it("is not offered for a graph that did not load or was not checked", () => {
    for (const inspected of [failed({}), null, undefined])
      expect(createAction(graph(inspected), { status: "succeeded" })).toBe("hidden");
  });
});
