import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NEW_PROJECT_FILES } from "../../../test/zip-fixture.js";
import { AppError } from "../../core/errors.js";
import { discoverGraphs, envNamesIn, parseGraphSpec, scanPython } from "./graph-discovery.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "superstep-discover-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

async function refusal(): Promise<AppError> {
  try {
    await discoverGraphs(root);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("discovery succeeded");
}

const GRAPH_PY = "from langgraph.graph import StateGraph\nb = StateGraph(dict)\ngraph = b.compile()\n";

describe("graph discovery", () => {
  it("reads a project shaped like new-langgraph-project: its graph, env names and project kind", async () => {
    write(NEW_PROJECT_FILES);
    expect(await discoverGraphs(root)).toEqual({
      graphs: [
        {
          id: "agent",
          spec: "./src/agent/graph.py:graph",
          file: "src/agent/graph.py",
          module: null,
          variable: "graph",
          line: null,
          origin: "langgraph.json",
        },
      ],
      envNames: ["LANGSMITH_API_KEY", "OPENAI_API_KEY"],
      project: { kind: "pyproject", files: ["pyproject.toml"] },
    });
  });

  it("reads module:var paths, entries that are objects with a path, and graph ids with spaces", async () => {
    write({
      "langgraph.json": JSON.stringify({
        graphs: {
          "React Agent": "react_agent.graph:graph",
          "in src": { path: "pkg.sub:make_graph", description: "a factory" },
          missing: "not_here.mod:graph",
        },
      }),
      "react_agent/graph.py": GRAPH_PY,
      "src/pkg/sub/__init__.py": GRAPH_PY,
      "requirements.txt": "langgraph\n",
      ".env.template": "TAVILY_API_KEY=\n",
      ".env.sample": "ANTHROPIC_API_KEY=x\n# COMMENTED=1\n",
    });
    const found = await discoverGraphs(root);
    expect(found.graphs.map((g) => [g.id, g.module, g.variable, g.file])).toEqual([
      ["React Agent", "react_agent.graph", "graph", "react_agent/graph.py"],
      ["in src", "pkg.sub", "make_graph", "src/pkg/sub/__init__.py"],
      ["missing", "not_here.mod", "graph", null],
    ]);
    expect(found.envNames).toEqual(["ANTHROPIC_API_KEY", "TAVILY_API_KEY"]);
    expect(found.project).toEqual({ kind: "requirements", files: ["requirements.txt"] });
  });

  it.each([["./src/agent/graph.ts:graph"], ["./src/graph.mts:graph"], ["./dist/graph.js:graph"]])(
    "refuses a langgraph.json whose graph is JavaScript (%s), saying so",
    async (spec) => {
      write({
        "langgraph.json": JSON.stringify({ node_version: "20", graphs: { agent: spec } }),
        "package.json": "{}",
      });
      const error = await refusal();
      expect(error.code).toBe("IMPORT_GRAPH_JAVASCRIPT");
      expect(error.message).toContain("only Python graphs");
      expect(error.message).toContain(spec);
    },
  );

  it.each([
    ["not json", "{graphs:", "not valid JSON"],
    ["no graphs map", JSON.stringify({ graphs: ["a"] }), "no graphs map"],
    ["no :variable", JSON.stringify({ graphs: { a: "./graph.py" } }), "does not end in :variable"],
    ["a path that climbs out", JSON.stringify({ graphs: { a: "../outside.py:graph" } }), "not a .py file inside"],
    ["an absent file", JSON.stringify({ graphs: { a: "./nope.py:graph" } }), "not in the source"],
    ["an entry without a path", JSON.stringify({ graphs: { a: { description: "x" } } }), "neither"],
  ])("refuses a langgraph.json with %s", async (_what, text, reason) => {
    write({ "langgraph.json": text });
    const error = await refusal();
    expect(error.code).toBe("IMPORT_LANGGRAPH_INVALID");
    expect(error.message).toContain(reason);
  });

  it("without langgraph.json, scans .py files for StateGraph and x = ….compile(…), skipping venvs", async () => {
    write({
      "app/graph.py": `${GRAPH_PY}\ndef f():\n    inner = b.compile()\n`,
      "app/other.py":
        "from langgraph.graph import StateGraph\nworkflow: CompiledStateGraph = builder.compile(checkpointer=None)\n",
      "app/plain.py": "thing = other.compile()\n",
      ".venv/lib/site.py": GRAPH_PY,
      "setup.py": "from setuptools import setup\n",
    });
    const found = await discoverGraphs(root);
    expect(found.graphs).toEqual([
      {
        id: "graph",
        spec: "./app/graph.py:graph",
        file: "app/graph.py",
        module: null,
        variable: "graph",
        line: 3,
        origin: "scan",
      },
      {
        id: "workflow",
        spec: "./app/other.py:workflow",
        file: "app/other.py",
        module: null,
        variable: "workflow",
        line: 2,
        origin: "scan",
      },
    ]);
    expect(found.project.kind).toBe("setup.py");
  });

  it("tells apart two scanned graphs with the same name by their file", async () => {
    write({ "a.py": GRAPH_PY, "b/c.py": GRAPH_PY });
    expect((await discoverGraphs(root)).graphs.map((g) => g.id)).toEqual(["a:graph", "b/c:graph"]);
  });

  it("refuses a repo with no graph, and never follows a symlink to read a file", async () => {
    write({ "README.md": "# nothing", "main.py": "print('hi')\n" });
    expect((await refusal()).code).toBe("IMPORT_NO_GRAPH");
    const outside = mkdtempSync(join(tmpdir(), "superstep-outside-"));
    try {
      writeFileSync(join(outside, "graph.py"), GRAPH_PY);
      symlinkSync(join(outside, "graph.py"), join(root, "linked.py"));
      symlinkSync(outside, join(root, "linkdir"));
      expect((await refusal()).code).toBe("IMPORT_NO_GRAPH");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("parses specs, env files and compile lines as pure functions", () => {
    expect(parseGraphSpec("g", "pkg.mod:var")).toMatchObject({ module: "pkg.mod", variable: "var", path: null });
    expect(parseGraphSpec("g", { path: "./a/b.py:var" })).toMatchObject({ module: null, path: "a/b.py" });
    expect(envNamesIn("A=1\n  export B=\n#C=3\nnot a line\nD = x")).toEqual(["A", "B", "D"]);
    expect(scanPython("graph = b.compile()\n")).toEqual([]);
    expect(scanPython("StateGraph\n  g = b.compile()\ng2 = (b).compile(\n")).toEqual([{ variable: "g2", line: 3 }]);
  });
});
