// The crash-test aid STUDIO_TEST_PAUSE_AT stops a run exactly where the result ledger and the
// checkpoints take over from each other, and a run continued from there repeats no finished call.
import { MemorySaver } from "@langchain/langgraph";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  collect,
  edge,
  engineConfig,
  eventsOf,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import type { TestPauseAt } from "../../core/config.js";
import { MemoryResultLedger } from "./ports.js";
import { runStream } from "./runtime.js";
import { TEST_PAUSE_MARKER } from "./test-pause.js";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver((request) => ({ json: { path: request.path } }));
});
afterAll(() => receiver.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const chain = () => ({
  name: "chain",
  state: [
    { name: "a", type: "any" },
    { name: "b", type: "any" },
    { name: "c", type: "any" },
  ],
  nodes: [
    httpTool("t1", `${receiver.url}/one`, "a"),
    httpTool("t2", `${receiver.url}/two`, "b"),
    httpTool("t3", `${receiver.url}/three`, "c"),
  ],
  edges: [edge("start", "t1"), edge("t1", "t2"), edge("t2", "t3")],
});

/** Resolves with the marker line the next pause writes to stderr. */
function nextMarker(): Promise<string> {
  const write = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array) => boolean;
  return new Promise((resolve) => {
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (text.startsWith(TEST_PAUSE_MARKER)) resolve(text.trim());
      else write(chunk);
      return true;
    });
  });
}

const callsTo = (runId: string, path: string) =>
  receiver.requests.filter((r) => r.headers["x-studio-run-id"] === runId && r.path === path).length;

async function pausedRun(runId: string, at: TestPauseAt) {
  const checkpointer = new MemorySaver();
  const ledger = new MemoryResultLedger();
  const controller = new AbortController();
  const marker = nextMarker();
  const first = collect(
    runStream(
      chain(),
      {},
      {
        engine: engineConfig({ testPauseAt: at }),
        runId,
        checkpointer,
        ledger,
        signal: controller.signal,
      },
    ),
  );
  const line = await marker;
  const checkpoint = await checkpointer.getTuple({ configurable: { thread_id: runId } });
  return { checkpointer, ledger, controller, first, line, checkpointed: checkpoint?.checkpoint.channel_values ?? {} };
}

async function continueRun(runId: string, paused: Awaited<ReturnType<typeof pausedRun>>) {
  return collect(
    runStream(chain(), null, {
      engine: engineConfig(),
      runId,
      checkpointer: paused.checkpointer,
      ledger: paused.ledger,
      resume: { kind: "continue" },
      attempt: 2,
    }),
  );
}

describe("STUDIO_TEST_PAUSE_AT", () => {
  it("ledger:<node> stops after the node's ledger row is written and before its checkpoint", async () => {
    const runId = "pause-ledger";
    const paused = await pausedRun(runId, { point: "ledger", nodeId: "t2" });
    expect(paused.line).toBe(`${TEST_PAUSE_MARKER} ledger:t2 run=${runId} key=${runId}:t2:0`);
    expect(paused.ledger.entries.get(`${runId}:t2:0`)?.update).toEqual({ b: { path: "/two" } });
    expect(paused.checkpointed).toHaveProperty("a");
    expect(paused.checkpointed).not.toHaveProperty("b");
    expect([callsTo(runId, "/two"), callsTo(runId, "/three")]).toEqual([1, 0]);

    // The run's signal ends the pause: the run is cancelled, as a cancel would.
    paused.controller.abort();
    expect((await paused.first).outcome.status).toBe("cancelled");

    // Continued from the checkpoint, t2 runs again but takes its result from the ledger.
    const { events, outcome } = await continueRun(runId, paused);
    expect(outcome.status).toBe("ok");
    expect(eventsOf(events, "node_finished", "t2").map((e) => e.data.reused)).toEqual([true]);
    expect([callsTo(runId, "/one"), callsTo(runId, "/two"), callsTo(runId, "/three")]).toEqual([1, 1, 1]);
  });

  it("checkpoint:<node> stops once the checkpoint of the node's superstep is committed", async () => {
    const runId = "pause-checkpoint";
    const paused = await pausedRun(runId, { point: "checkpoint", nodeId: "t2" });
    expect(paused.line).toBe(`${TEST_PAUSE_MARKER} checkpoint:t2 run=${runId} key=${runId}:t2:0`);
    expect(paused.checkpointed).toMatchObject({ b: { path: "/two" } });
    expect(paused.checkpointed).not.toHaveProperty("c");
    expect(callsTo(runId, "/three")).toBe(0);
    paused.controller.abort();
    expect((await paused.first).outcome.status).toBe("cancelled");

    // Continued from that checkpoint, t2 does not run at all.
    const { events, outcome } = await continueRun(runId, paused);
    expect(outcome.status).toBe("ok");
    expect(eventsOf(events, "node_started", "t2")).toEqual([]);
    expect([callsTo(runId, "/one"), callsTo(runId, "/two"), callsTo(runId, "/three")]).toEqual([1, 1, 1]);
  });

  it("is inert when unset, and for nodes it does not name", async () => {
    const write = vi.spyOn(process.stderr, "write");
    const plain = await collect(runStream(chain(), {}, { engine: engineConfig(), runId: "pause-unset" }));
    const other = await collect(
      runStream(
        chain(),
        {},
        {
          engine: engineConfig({ testPauseAt: { point: "ledger", nodeId: "elsewhere" } }),
          runId: "pause-other",
        },
      ),
    );
    expect([plain.outcome.status, other.outcome.status]).toEqual(["ok", "ok"]);
    expect(write.mock.calls.filter(([chunk]) => String(chunk).startsWith(TEST_PAUSE_MARKER))).toEqual([]);
  });
});
