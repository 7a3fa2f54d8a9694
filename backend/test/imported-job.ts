// An import job written by hand for tests of imported runs: <imports>/<job>/job.json, the graph's
// Python under src/, and venv/ linked to the repository's .venv-runner (Python with langgraph), so
// the subprocess runtime runs the real runner against real langgraph without an install step.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const RUNNER_VENV = fileURLToPath(new URL("../../.venv-runner", import.meta.url));

export interface ImportedJobFixture {
  jobId: string;
  jobDir: string;
  /** How many times each node of the graph ran (the graphs below count in <job>/counters/<node>). */
  count(node: string): number;
  /** The workflow document of the graph (nodes keyed by the graph's own ids). */
  document(nodes: string[], extra?: { env_names?: string[] }): Record<string, unknown>;
}

/** The owner a fixture job is written with, until a test gives it to its user (ownImportedJob). */
const OWNER_PLACEHOLDER = "test";

/** Gives a fixture job to a user: an imported workflow runs only its own owner's job. */
export function ownImportedJob(importDir: string, jobId: string, userId: string): void {
  const path = join(importDir, jobId, "job.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), owner_id: userId }));
}

export function writeImportedJob(
  importDir: string,
  jobId: string,
  files: Record<string, string>,
  graph = { id: "agent", spec: "./graph.py:graph" },
): ImportedJobFixture {
  const jobDir = join(importDir, jobId);
  for (const [name, text] of Object.entries(files)) {
    const path = join(jobDir, "src", name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  mkdirSync(join(jobDir, "counters"), { recursive: true });
  symlinkSync(RUNNER_VENV, join(jobDir, "venv"));
  const now = new Date().toISOString();
  writeFileSync(
    join(jobDir, "job.json"),
    JSON.stringify({
      id: jobId,
      owner_id: OWNER_PLACEHOLDER,
      source: { kind: "github", url: "https://github.com/example/graph", branch: null, subdir: null },
      status: "succeeded",
      step: "ready",
      steps: [],
      logs: [],
      graphs: [
        { ...graph, file: "graph.py", module: null, variable: "graph", line: 1, origin: "scan", inspected: null },
      ],
      env_names: [],
      project: { kind: "none", files: [] },
      source_root: "src",
      source_bytes: 1,
      error: null,
      created_at: now,
      updated_at: now,
      pid: process.pid,
      keep: true,
    }),
  );
  return {
    jobId,
    jobDir,
    count: (node) => {
      try {
        return Number(readFileSync(join(jobDir, "counters", node), "utf8"));
      } catch {
        return 0;
      }
    },
    document: (nodes, extra = {}) => ({
      name: `imported ${graph.id}`,
      imported: {
        job_id: jobId,
        graph_id: graph.id,
        spec: graph.spec,
        env_names: extra.env_names ?? [],
        context_schema: null,
      },
      nodes: [
        { id: "start", type: "start", position: { x: 0, y: 0 }, data: {} },
        ...nodes.map((node, i) => ({
          id: node.replace(/[^A-Za-z0-9_-]/g, "_"),
          type: "code",
          position: { x: 0, y: 100 * (i + 1) },
          data: {
            label: node,
            language: "python",
            code: "",
            imported: { node, source: { file: "graph.py", line: 1 }, subgraph: null },
          },
        })),
        { id: "end", type: "end", position: { x: 0, y: 100 * (nodes.length + 1) }, data: {} },
      ],
      edges: [
        { id: "e0", source: "start", target: nodes[0]?.replace(/[^A-Za-z0-9_-]/g, "_") ?? "end" },
        ...nodes.slice(1).map((node, i) => ({
          id: `e${i + 1}`,
          source: (nodes[i] as string).replace(/[^A-Za-z0-9_-]/g, "_"),
          target: node.replace(/[^A-Za-z0-9_-]/g, "_"),
        })),
      ],
    }),
  };
}

/**
 * Python that counts a node's runs in <job>/counters/<node> (the module is <job>/src/graph.py).
 * The count is replaced in one rename: a runner killed mid-write (the crash tests) never leaves an
 * empty file behind.
 */
export const COUNTER_PY = `
import os
from pathlib import Path

def count(node):
    path = Path(__file__).resolve().parent.parent / "counters" / node
    n = int(path.read_text()) if path.exists() else 0
    partial = path.with_name(path.name + ".partial")
    partial.write_text(str(n + 1))
    os.replace(partial, path)
`;

/** Two nodes one after the other: "step one" adds 1 to n, "step two" doubles it. */
export const TWO_NODE_GRAPH = `${COUNTER_PY}
from typing import TypedDict
from langgraph.graph import StateGraph, START, END

class State(TypedDict):
    n: int

def one(state):
    count("one")
    return {"n": state["n"] + 1}

def two(state):
    count("two")
    return {"n": state["n"] * 2}

builder = StateGraph(State)
builder.add_node("step one", one)
builder.add_node("step two", two)
builder.add_edge(START, "step one")
builder.add_edge("step one", "step two")
builder.add_edge("step two", END)
graph = builder.compile()
`;

/** Asks a person with interrupt() and greets with the answer. */
export const INTERRUPT_GRAPH = `${COUNTER_PY}
from typing import Any, TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt

class State(TypedDict, total=False):
    name: str
    greeting: Any

def prepare(state):
    count("prepare")
    return {"name": state.get("name", "")}

def ask(state):
    answer = interrupt("What should I say to " + state["name"] + "?")
    return {"greeting": answer}

builder = StateGraph(State)
builder.add_node("prepare", prepare)
builder.add_node("ask", ask)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "ask")
builder.add_edge("ask", END)
graph = builder.compile()
`;

/** A node that never ends on its own. */
export const SLEEPER_GRAPH = `${COUNTER_PY}
import time
from typing import TypedDict
from langgraph.graph import StateGraph, START, END

class State(TypedDict, total=False):
    n: int

def sleep(state):
    count("sleep")
    time.sleep(3600)
    return {"n": 1}

builder = StateGraph(State)
builder.add_node("sleep", sleep)
builder.add_edge(START, "sleep")
builder.add_edge("sleep", END)
graph = builder.compile()
`;

/** A node that reads a key the repository declares in .env.example. */
export const ENV_GRAPH = `
import os
from typing import TypedDict
from langgraph.graph import StateGraph, START, END

class State(TypedDict, total=False):
    key: str

def read(state):
    return {"key": os.environ["SERVICE_API_KEY"][:3]}

builder = StateGraph(State)
builder.add_node("read", read)
builder.add_edge(START, "read")
builder.add_edge("read", END)
graph = builder.compile()
`;
