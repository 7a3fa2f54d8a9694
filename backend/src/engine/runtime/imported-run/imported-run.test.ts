// Imported runs through runStream: the real runner.py and langgraph in the subprocess runtime of
// the import sandbox, against job directories the tests write (see test/imported-job.ts).
import { lstatSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { collect, engineConfig } from "../../../../test/engine-harness.js";
import {
  ENV_GRAPH,
  INTERRUPT_GRAPH,
  SLEEPER_GRAPH,
  TWO_NODE_GRAPH,
  writeImportedJob,
} from "../../../../test/imported-job.js";
import { loadConfig } from "../../../core/config.js";
import type { StudioEvent } from "../events.js";
import { type RunOptions, runStream } from "../runtime.js";
import { IMPORTED_CHANNEL } from "./imported-checkpoints.js";

const importDir = mkdtempSync(join(tmpdir(), "superstep-imported-run-"));
afterAll(() => rmSync(importDir, { recursive: true, force: true }));

function options(env: Record<string, string> = {}, extra: Partial<RunOptions> = {}): RunOptions {
  const config = loadConfig({ STUDIO_IMPORT_RUNTIME: "subprocess", STUDIO_IMPORT_DIR: importDir, ...env }, false);
  return {
    engine: engineConfig(),
    imports: {
      config: config.imports,
      sourceOf: async (jobId) => ({ jobDir: join(importDir, jobId), root: join(importDir, jobId, "src") }),
      serverEnv: {},
    },
    ...extra,
  };
}

const brief = (events: StudioEvent[]) =>
  events.map((event) => [event.type, event.node_id ?? null, event.superstep ?? null]);

describe("imported runs", () => {
  it("runs a two-node graph to its final state with node events in order, node ids mapped", async () => {
    const job = writeImportedJob(importDir, "two-nodes", { "graph.py": TWO_NODE_GRAPH });
    const { events, outcome } = await collect(
      runStream(job.document(["step one", "step two"]), { n: 4 }, options({}, { runId: "run-two" })),
    );
    expect(outcome.status).toBe("ok");
    expect(outcome.state).toEqual({ n: 10 });
    expect(brief(events)).toEqual([
      ["run_started", null, null],
      ["node_started", "step_one", 1],
      ["node_finished", "step_one", 1],
      ["node_started", "step_two", 2],
      ["node_finished", "step_two", 2],
      ["run_finished", null, null],
    ]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[2]?.data.output).toEqual({ n: 5 });
    expect(events.at(-1)?.data).toMatchObject({ status: "ok", state: { n: 10 } });
  });

  it("waits at interrupt() with a one-field form, and the answer reaches the graph", async () => {
    const job = writeImportedJob(importDir, "interrupt", { "graph.py": INTERRUPT_GRAPH });
    const document = job.document(["prepare", "ask"]);
    const checkpointer = new MemorySaver();
    const first = await collect(runStream(document, { name: "Ana" }, options({}, { runId: "run-ask", checkpointer })));
    expect(first.outcome.status).toBe("waiting");
    expect(first.outcome.waiting).toEqual({
      node_id: "ask",
      message: "What should I say to Ana?",
      fields: [{ name: "answer", type: "text", label: "Answer", required: true }],
      timeout_seconds: null,
      expires_at: null,
    });
    expect(first.events.at(-1)).toMatchObject({ type: "run_waiting", node_id: "ask" });

    const second = await collect(
      runStream(
        document,
        null,
        options(
          {},
          {
            runId: "run-ask",
            checkpointer,
            resume: { kind: "human", input: { answer: '{"text": "hi"}' } },
            firstSeq: first.outcome.nextSeq,
          },
        ),
      ),
    );
    expect(second.outcome.status).toBe("ok");
    expect(second.outcome.state).toEqual({ name: "Ana", greeting: { text: "hi" } });
    expect(second.events[0]).toMatchObject({
      type: "run_started",
      seq: first.outcome.nextSeq,
      data: { resumed: true },
    });
    // The node before the interrupt ran once: the resumed turn started from the checkpoint.
    expect(job.count("prepare")).toBe(1);
  });

  it("continues a turn cut after a checkpoint from that checkpoint, without running the finished node again", async () => {
    const job = writeImportedJob(importDir, "cut", { "graph.py": TWO_NODE_GRAPH });
    const document = job.document(["step one", "step two"]);
    const cut = new AbortController();
    // The turn is cut right after the checkpoint holding step one's result is stored.
    const checkpointer = new (class extends MemorySaver {
      override async put(...args: Parameters<MemorySaver["put"]>) {
        const stored = await super.put(...args);
        const kept = args[0].configurable?.checkpoint_ns === "" ? args[1].channel_values[IMPORTED_CHANNEL] : null;
        if ((kept as { superstep?: number } | null)?.superstep === 1) cut.abort();
        return stored;
      }
    })();
    const first = await collect(
      runStream(document, { n: 1 }, options({}, { runId: "run-cut", checkpointer, signal: cut.signal })),
    );
    expect(first.outcome.status).toBe("cancelled");
    expect(job.count("one")).toBe(1);
    const second = await collect(
      runStream(document, null, options({}, { runId: "run-cut", checkpointer, resume: { kind: "continue" } })),
    );
    expect(second.outcome.status).toBe("ok");
    expect(second.outcome.state).toEqual({ n: 4 });
    expect(job.count("one")).toBe(1);
    // Step one is not started again. Step two is, unless it had finished before the cut: a busy
    // machine lets the runner get that far before the cut stops it, and the checkpoint it shipped
    // then holds step two's writes, which the resumed turn applies without running it.
    const started = brief(second.events).filter(([type]) => type === "node_started");
    expect(started.map(([, node]) => node)).not.toContain("step_one");
    expect(started.length === 0 ? job.count("two") : started).toEqual(
      started.length === 0 ? 1 : [["node_started", "step_two", 2]],
    );
  });

  it("ends a graph that outlives the time limit with a SANDBOX_STOPPED error event", async () => {
    const job = writeImportedJob(importDir, "sleeper", { "graph.py": SLEEPER_GRAPH });
    const { events, outcome } = await collect(
      runStream(job.document(["sleep"]), {}, options({ STUDIO_RUN_TIMEOUT: "2" })),
    );
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({ code: "SANDBOX_STOPPED", message: "Sandbox stopped (time limit (2s))" });
    const error = events.find((event) => event.type === "error");
    expect(error?.data.error).toMatchObject({ code: "SANDBOX_STOPPED", message: "Sandbox stopped (time limit (2s))" });
  });

  it("stops the sandbox when the run is cancelled", async () => {
    const job = writeImportedJob(importDir, "cancel", { "graph.py": SLEEPER_GRAPH });
    const cancel = new AbortController();
    const { outcome } = await collect(
      runStream(
        job.document(["sleep"]),
        {},
        options(
          {},
          {
            signal: cancel.signal,
            onEvent: (event) => {
              if (event.type === "node_started") cancel.abort();
            },
          },
        ),
      ),
    );
    expect(outcome.status).toBe("cancelled");
    expect(outcome.error?.code).toBe("RUN_CANCELLED");
  });

  it("names a declared key that is not set: IMPORTED_ENV_MISSING", async () => {
    const job = writeImportedJob(importDir, "env", { "graph.py": ENV_GRAPH, ".env.example": "SERVICE_API_KEY=\n" });
    const { events, outcome } = await collect(
      runStream(job.document(["read"], { env_names: ["SERVICE_API_KEY"] }), {}, options()),
    );
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({ code: "IMPORTED_ENV_MISSING", details: { names: ["SERVICE_API_KEY"] } });
    expect(events.filter((event) => event.type === "error")).toHaveLength(1);
  });

  it("passes a declared key the server has, and nothing else of its environment", async () => {
    const job = writeImportedJob(importDir, "env-set", { "graph.py": ENV_GRAPH, ".env.example": "SERVICE_API_KEY=\n" });
    const run = options();
    const { outcome } = await collect(
      runStream(
        job.document(["read"], { env_names: ["SERVICE_API_KEY"] }),
        {},
        {
          ...run,
          imports: { ...(run.imports as NonNullable<RunOptions["imports"]>), serverEnv: { SERVICE_API_KEY: "abcdef" } },
        },
      ),
    );
    expect(outcome.status).toBe("ok");
    expect(outcome.state).toEqual({ key: "abc" });
  });

  it("reruns from the start with the original input when the checkpoint it would resume from was unavailable", async () => {
    // Step one's state is over the runner's 2 MB limit: its checkpoint cannot be shipped.
    const job = writeImportedJob(importDir, "unavailable", {
      "graph.py": TWO_NODE_GRAPH.replace(
        'return {"n": state["n"] + 1}',
        'return {"n": state["n"] + 1, "big": "x" * 3_000_000}',
      ).replace("    n: int", "    n: int\n    big: str"),
    });
    const document = job.document(["step one", "step two"]);
    const cut = new AbortController();
    const checkpointer = new (class extends MemorySaver {
      override async put(...args: Parameters<MemorySaver["put"]>) {
        const stored = await super.put(...args);
        const kept = args[1].channel_values[IMPORTED_CHANNEL] as { runner: unknown; unavailable?: string } | undefined;
        if (kept?.runner === null && kept.unavailable) cut.abort();
        return stored;
      }
    })();
    const first = await collect(
      runStream(document, { n: 1 }, options({}, { runId: "run-unavailable", checkpointer, signal: cut.signal })),
    );
    expect(first.outcome.status).toBe("cancelled");
    expect(job.count("one")).toBe(1);
    const second = await collect(
      runStream(document, null, options({}, { runId: "run-unavailable", checkpointer, resume: { kind: "continue" } })),
    );
    expect(second.outcome.status, JSON.stringify(second.outcome.error)).toBe("ok");
    expect(second.outcome.state.n).toBe(4);
    expect(job.count("one")).toBe(2);
  });

  it("reports a runner killed from outside as Sandbox stopped, and the next run is unaffected", async () => {
    const job = writeImportedJob(importDir, "killed", {
      "graph.py": TWO_NODE_GRAPH.replace(
        'count("two")',
        'count("two")\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)',
      ),
    });
    const { events, outcome } = await collect(runStream(job.document(["step one", "step two"]), { n: 1 }, options()));
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({ code: "SANDBOX_STOPPED", details: { exit_code: 137 } });
    expect(outcome.error?.message).toMatch(/^Sandbox stopped \(/);
    expect(events.map((event) => event.type)).toEqual([
      "run_started",
      "node_started",
      "node_finished",
      "node_started",
      "error",
      "run_finished",
    ]);
    const other = writeImportedJob(importDir, "after-kill", { "graph.py": TWO_NODE_GRAPH });
    const next = await collect(runStream(other.document(["step one", "step two"]), { n: 1 }, options()));
    expect(next.outcome).toMatchObject({ status: "ok", state: { n: 4 } });
  });

  it("reports a runner that exits without a result with its exit code and the end of its stderr", async () => {
    const job = writeImportedJob(importDir, "exits", {
      "graph.py": TWO_NODE_GRAPH.replace(
        'count("one")',
        'count("one")\n    import os, sys\n    print("leaving now", file=sys.stderr, flush=True)\n    os._exit(5)',
      ),
    });
    const { outcome } = await collect(runStream(job.document(["step one", "step two"]), { n: 1 }, options()));
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe("IMPORTED_GRAPH_FAILED");
    expect(outcome.error?.message).toBe("The imported graph's runner ended (exit code 5) without a result.");
    expect(outcome.error?.details).toMatchObject({ exit_code: 5, stderr: expect.arrayContaining(["leaving now"]) });
  });

  it("reports a graph that raises as IMPORTED_GRAPH_FAILED on its node, with the error's type and location", async () => {
    const job = writeImportedJob(importDir, "raises", {
      "graph.py": TWO_NODE_GRAPH.replace('count("two")', 'count("two")\n    raise ValueError("no doubling today")'),
    });
    const { events, outcome } = await collect(runStream(job.document(["step one", "step two"]), { n: 1 }, options()));
    expect(outcome.error).toMatchObject({
      code: "IMPORTED_GRAPH_FAILED",
      details: { error_type: "ValueError", message: "no doubling today", location: { file: "graph.py" } },
    });
    expect(events.filter((event) => event.type === "error").map((event) => event.node_id)).toEqual(["step_two"]);
  });

  it("reports a graph that cannot be loaded as IMPORTED_GRAPH_LOAD_FAILED", async () => {
    const job = writeImportedJob(importDir, "broken", { "graph.py": "import not_a_module_anywhere\n" });
    const { outcome } = await collect(runStream(job.document(["step one"]), {}, options()));
    expect(outcome.error).toMatchObject({
      code: "IMPORTED_GRAPH_LOAD_FAILED",
      details: { error_type: "ModuleNotFoundError" },
    });
  });

  it("keeps the values of the keys it passes in out of events and the state", async () => {
    const job = writeImportedJob(importDir, "echo", {
      "graph.py": ENV_GRAPH.replace('os.environ["SERVICE_API_KEY"][:3]', '"key is " + os.environ["SERVICE_API_KEY"]'),
      ".env.example": "SERVICE_API_KEY=\n",
    });
    const run = options();
    const { events, outcome } = await collect(
      runStream(
        job.document(["read"], { env_names: ["SERVICE_API_KEY"] }),
        {},
        {
          ...run,
          imports: {
            ...(run.imports as NonNullable<RunOptions["imports"]>),
            serverEnv: { SERVICE_API_KEY: "sk-secret-value-123" },
          },
        },
      ),
    );
    expect(outcome.status).toBe("ok");
    expect(JSON.stringify(outcome.state)).not.toContain("sk-secret-value-123");
    expect(JSON.stringify(events)).not.toContain("sk-secret-value-123");
    expect(String(outcome.state.key)).toMatch(/^key is /);
  });

  it("never writes a turn's files through a link planted at <job>/runs", async () => {
    const job = writeImportedJob(importDir, "planted", { "graph.py": TWO_NODE_GRAPH });
    const elsewhere = mkdtempSync(join(tmpdir(), "superstep-elsewhere-"));
    try {
      symlinkSync(elsewhere, join(job.jobDir, "runs"));
      const { outcome } = await collect(runStream(job.document(["step one", "step two"]), { n: 1 }, options()));
      expect(outcome).toMatchObject({ status: "ok", state: { n: 4 } });
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(lstatSync(join(job.jobDir, "runs")).isSymbolicLink()).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("keeps a passed key's value out of the run's error too", async () => {
    const job = writeImportedJob(importDir, "leaks", {
      "graph.py": ENV_GRAPH.replace(
        'return {"key": os.environ["SERVICE_API_KEY"][:3]}',
        'raise RuntimeError("bad key " + os.environ["SERVICE_API_KEY"])',
      ),
      ".env.example": "SERVICE_API_KEY=\n",
    });
    const run = options();
    const { events, outcome } = await collect(
      runStream(
        job.document(["read"], { env_names: ["SERVICE_API_KEY"] }),
        {},
        {
          ...run,
          imports: {
            ...(run.imports as NonNullable<RunOptions["imports"]>),
            serverEnv: { SERVICE_API_KEY: "sk-secret-value-456" },
          },
        },
      ),
    );
    expect(outcome.error).toMatchObject({ code: "IMPORTED_GRAPH_FAILED", details: { message: "bad key [redacted]" } });
    expect(JSON.stringify(outcome)).not.toContain("sk-secret-value-456");
    expect(JSON.stringify(events)).not.toContain("sk-secret-value-456");
  });
});
