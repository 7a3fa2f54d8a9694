// A run's Python Code nodes share one sandbox child, each call in a fresh namespace; the run's end
// kills it, and the next run (back to back) starts with nothing the last one left.
import { afterAll, describe, expect, it, vi } from "vitest";
import { at, collect, edge, engineConfig } from "../../../test/engine-harness.js";
import { runOneNode } from "../runtime/one-node.js";
import { prepareWorkflow } from "../runtime/prepare-workflow.js";
import { runStream } from "../runtime/runtime.js";
import { runInSandbox } from "../sandbox/sandbox.js";
import { sandboxPoolReady, sandboxPoolStats, stopSandboxPool } from "../sandbox/sandbox-pool.js";

const python = (id: string, code: string) => ({ id, type: "code", position: at, data: { language: "python", code } });

const workflow = {
  name: "three Python steps",
  state: [
    { name: "who", type: "string" },
    { name: "before", type: "any" },
    { name: "after", type: "any" },
  ],
  nodes: [
    python(
      "look",
      `import builtins, os

def main(state):
    return {"before": {"mark": getattr(builtins, "superstep_mark", None), "file": os.path.exists("/tmp/mark.txt")}}
`,
    ),
    python(
      "mark",
      `import builtins

leftover = "a module global of this node"

def main(state):
    builtins.superstep_mark = state["who"]
    with open("/tmp/mark.txt", "w") as f:
        f.write(state["who"])
    return {}
`,
    ),
    python(
      "check",
      `import builtins

def main(state):
    with open("/tmp/mark.txt") as f:
        written = f.read()
    return {"after": {"mark": getattr(builtins, "superstep_mark", None), "file": written, "leftover": "leftover" in globals()}}
`,
    ),
  ],
  edges: [edge("start", "look"), edge("look", "mark"), edge("mark", "check"), edge("check", "end")],
};

const engine = engineConfig({ codeWarm: 1, codeWarmMax: 4 });
const limits = { timeoutMs: engine.codeTimeoutMs, memoryMb: engine.codeMemoryMb };

afterAll(() => stopSandboxPool());

describe("a run's Python calls share one sandbox child", () => {
  it("runs a run's Python steps in one child, each in a fresh namespace, and the next run in another", async () => {
    await stopSandboxPool();
    // A warm pool: one child ready, as after a server's first Python call.
    const warmUp = await runInSandbox({ language: "python", code: "def main():\n    return 0\n", args: [] }, limits);
    expect(warmUp.ok).toBe(true);
    await sandboxPoolReady("python", limits.memoryMb);

    for (const who of ["run one", "run two"]) {
      const startedBefore = sandboxPoolStats().started.python;
      const { outcome } = await collect(runStream(workflow, { who }, { engine }));
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe("ok");
      // The run before this one left nothing; within this run, one step's change to the
      // interpreter and its files is seen by the next, its module globals are not.
      expect(outcome.state.before).toEqual({ mark: null, file: false });
      expect(outcome.state.after).toEqual({ mark: who, file: who, leftover: false });
      // The run's end killed its child.
      await vi.waitFor(() => expect(sandboxPoolStats().scoped).toEqual({}));
      // Three steps took the one ready child; the only child started meanwhile is its replacement.
      await sandboxPoolReady("python", limits.memoryMb);
      expect(sandboxPoolStats().started.python - startedBefore).toBe(1);
    }
  });

  it("kills the child a node run alone (the editor's run of one node) kept, once it has answered", async () => {
    const validated = await prepareWorkflow(workflow, { engine });
    const result = await runOneNode(validated, "mark", { who: "alone" }, { engine });
    expect(result.status).toBe("ok");
    await vi.waitFor(() => expect(sandboxPoolStats().scoped).toEqual({}));
    // And the next run starts with nothing that node left.
    const { outcome } = await collect(runStream(workflow, { who: "after" }, { engine }));
    expect(outcome.state.before).toEqual({ mark: null, file: false });
  });
});
