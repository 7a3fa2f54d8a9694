// Near exactly-once, proved at every kill point. A studio process is killed with SIGKILL at an
// exact point of a run, a new studio process on the same database takes the run over, and the
// run must end `ok` with the state of an uncrashed run while every side effect reaches its
// receiver (HTTP server, fake OpenAI server, SMTP server) as promised:
//   call        in flight (received, not answered): repeated once, same idempotency key,
//               X-Studio-Attempt 2 (the documented at-least-once window)
//   ledger      the call returned and its ledger row is written, the superstep's checkpoint is
//               not: received exactly once, the result comes from the ledger (`reused`)
//   checkpoint  the checkpoint after the node is committed: received once, the node not run again
//   human       the run waits for a person: received once; answered after the restart
// for HTTP tools, LLM nodes and Send email, first, in the middle or last in the workflow, as a
// For each body and inside a Subgraph. The exact points come from STUDIO_TEST_PAUSE_AT.
//
// Scenarios run in chains, each chain on its own database: the studio that takes over scenario
// n's run also starts scenario n+1's run and is killed at its point, so every studio process but
// the first and last is killed once. The chains run side by side.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callCounts, callsOf, normalise, type Receivers, type RunRef, startReceivers } from "./crash-receivers.js";
import { at, edge, httpTool } from "./engine-harness.js";
import "./provided-context.js";
import { call, type StudioApi, setUp, waitForStatus } from "./studio-api.js";
import { assertBuilt, reapStudioProcesses, type StudioProcess, startStudioProcess } from "./studio-process.js";
import { testDatabaseEnv } from "./test-database.js";

// Long enough that a live studio on a busy machine keeps its leases; short, so takeovers are quick.
const LEASE_TTL_S = 2;
const CHAINS = 3;
const PAUSE_MARKER = "superstep-test-pause"; // TEST_PAUSE_MARKER of engine/runtime/test-pause.ts
const ITEMS = ["i1", "i2", "i3"];

type Kind = "http" | "llm" | "email";
type Position = "first" | "middle" | "last" | "for_each" | "subgraph";
type KillPoint = "call" | "ledger" | "checkpoint" | "human";

interface Scenario {
  id: string;
  name: string;
  kind: Kind;
  position: Position;
  point: KillPoint;
}

const KINDS: Kind[] = ["http", "llm", "email"];
const POSITIONS: Position[] = ["first", "middle", "last", "for_each", "subgraph"];

/** Every node type at every position for the ledger's window; two positions each for the other points. */
function allScenarios(): Scenario[] {
  const list: Omit<Scenario, "id" | "name">[] = [];
  for (const kind of KINDS) for (const position of POSITIONS) list.push({ kind, position, point: "ledger" });
  KINDS.forEach((kind, k) => {
    (["call", "checkpoint"] as const).forEach((point, p) => {
      // Rotating, so that each point sees all five positions across the three node types.
      for (const shift of [0, 1])
        list.push({ kind, point, position: POSITIONS[(2 * k + 2 * p + shift) % 5] as Position });
    });
  });
  for (const kind of KINDS) list.push({ kind, position: "middle", point: "human" });
  return list.map((s, i) => ({
    ...s,
    id: `s${String(i).padStart(2, "0")}`,
    name: `${s.kind} node (${s.position}) killed at ${s.point}`,
  }));
}

/** The id of the node under test in events (and in STUDIO_TEST_PAUSE_AT). */
const nodeUnderTest = (s: Scenario) => (s.position === "subgraph" ? `${s.id}_sub/${s.id}_x` : `${s.id}_x`);
/** How many calls the node under test makes in one run. */
const callsUnderTest = (s: Scenario) => (s.position === "for_each" ? ITEMS.length : 1);

function sideEffectNode(s: Scenario, receivers: Receivers) {
  const id = `${s.id}_x`;
  const item = s.position === "for_each" ? "{{item}}" : "";
  // `hold-<tag>` tells the receivers which run's call this is (the tag is in the run's context).
  const mark = "hold-{{context.tag}}";
  switch (s.kind) {
    case "http":
      return httpTool(id, `${receivers.httpUrl}/${s.id}/x${item ? `/${item}` : ""}?mark=${mark}`, "x", {
        body: { node: id, item },
      });
    case "llm":
      return {
        id,
        type: "llm",
        position: at,
        data: {
          model: "fake-model",
          base_url: receivers.llmUrl,
          prompt: `node=${id} item=${item} ${mark}`,
          output_field: "x",
        },
      };
    case "email":
      return {
        id,
        type: "send_email",
        position: at,
        data: {
          to: "ops@example.com",
          subject: `node=${id} item=${item}`,
          body: `Crash test ${mark}`,
          output_field: "x",
        },
      };
  }
}

/** The scenario's workflow, and the child workflow its Subgraph node runs (saved first, as version 1). */
function documents(s: Scenario, receivers: Receivers, childId?: string) {
  const filler = (name: string) => httpTool(`${s.id}_${name}`, `${receivers.httpUrl}/${s.id}/${name}`, name);
  const x = sideEffectNode(s, receivers);
  const [a, b] = [filler("a"), filler("b")];
  const id = (node: { id: string }) => node.id;
  const chain = (...nodes: { id: string }[]) => [
    edge("start", id(nodes[0] as { id: string })),
    ...nodes.slice(1).map((node, i) => edge(id(nodes[i] as { id: string }), id(node))),
  ];
  const state = [
    { name: "a", type: "any" },
    { name: "b", type: "any" },
    { name: "x", type: "any" },
    { name: "items", type: "list", default: ITEMS },
    { name: "results", type: "list" },
    { name: "answer", type: "object" },
  ];
  const workflow = (nodes: object[], edges: object[]) => ({ name: `${s.id}: ${s.name}`, state, nodes, edges });
  switch (s.point === "human" ? "human" : s.position) {
    case "first":
      return { parent: workflow([x, a, b], chain(x, a, b)) };
    case "middle":
      return { parent: workflow([a, x, b], chain(a, x, b)) };
    case "last":
      return { parent: workflow([a, b, x], chain(a, b, x)) };
    case "for_each": {
      const fe = {
        id: `${s.id}_fe`,
        type: "for_each",
        position: at,
        data: { items: "{{state.items}}", output_field: "results" },
      };
      return {
        parent: workflow([a, fe, x, b], [...chain(a, fe), edge(fe.id, x.id, "item"), edge(fe.id, b.id, "done")]),
      };
    }
    case "subgraph": {
      const c = filler("c");
      const child = {
        name: `${s.id}: child`,
        state: [
          { name: "c", type: "any" },
          { name: "x", type: "any" },
        ],
        nodes: [c, x],
        edges: chain(c, x),
      };
      const sub = {
        id: `${s.id}_sub`,
        type: "subgraph",
        position: at,
        data: { workflow_id: childId ?? "", version: 1, output: { x: "x" } },
      };
      return { parent: workflow([a, sub, b], chain(a, sub, b)), child };
    }
    case "human": {
      const ask = {
        id: `${s.id}_ask`,
        type: "human",
        position: at,
        data: { message: "OK?", fields: [{ name: "ok", type: "boolean", required: true }], output_field: "answer" },
      };
      return { parent: workflow([a, x, ask, b], chain(a, x, ask, b)) };
    }
  }
}

interface Reference {
  state: string;
  counts: Record<string, number>;
}

interface RunEvent {
  type: string;
  node_id?: string;
  data: Record<string, unknown>;
}

describe("side effects across a SIGKILL at every kill point", () => {
  let receivers: Receivers;
  const cleanups: (() => Promise<void>)[] = [];
  const scenarios = allScenarios();
  const chains = Array.from({ length: CHAINS }, (_, c) => scenarios.filter((_, i) => i % CHAINS === c));

  beforeAll(async () => {
    assertBuilt();
    receivers = await startReceivers();
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await receivers?.close();
    for (const cleanup of cleanups) await cleanup();
  });

  it("runs at least 20 kill/restart cycles per database, covering every node type, kill point and position", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
    for (const point of ["call", "ledger", "checkpoint"] as const)
      for (const kind of KINDS) expect(scenarios.some((s) => s.point === point && s.kind === kind)).toBe(true);
    for (const point of ["call", "ledger", "checkpoint"] as const)
      expect(new Set(scenarios.filter((s) => s.point === point).map((s) => s.position))).toEqual(new Set(POSITIONS));
  });

  it.concurrent.each(chains.map((chain, c) => [c + 1, chain] as const))(
    "chain %i: every run ends ok with the uncrashed state, each finished call received once",
    async (chainNumber, chain) => {
      const started = performance.now();
      const dataDir = mkdtempSync(join(tmpdir(), "superstep-kill-points-"));
      const database = await testDatabaseEnv();
      cleanups.push(async () => {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      });
      const env = {
        STUDIO_DATA_DIR: dataDir,
        STUDIO_LOG_FORMAT: "json",
        STUDIO_EGRESS_ALLOW: "127.0.0.1",
        STUDIO_SMTP_URL: receivers.smtpUrl,
        STUDIO_RUN_LEASE_TTL: String(LEASE_TTL_S),
        STUDIO_WORKER_CONCURRENCY: "16",
        STUDIO_USER_MAX_RUNS: "16",
        STUDIO_USER_RUN_RATE: "1000",
        ...database.env,
      };
      let token = "";
      const start = async (extra: Record<string, string> = {}): Promise<{ studio: StudioProcess; api: StudioApi }> => {
        const studio = await startStudioProcess({ ...env, ...extra });
        return { studio, api: { base: studio.url, token } };
      };

      // 1. Save the workflows and run each once without a crash: the reference.
      const first = await start();
      const { key } = await setUp(first.api, []);
      token = first.api.token;
      const workflowIds = new Map<string, string>();
      for (const s of chain) {
        let childId: string | undefined;
        const { child } = documents(s, receivers, "pending");
        if (child) childId = String((await call(first.api, "POST", "/api/workflows", child)).body.data.id);
        const created = await call(first.api, "POST", "/api/workflows", documents(s, receivers, childId).parent);
        expect(created.status, `${s.name}: ${JSON.stringify(created.body.error)}`).toBe(201);
        workflowIds.set(s.id, String(created.body.data.id));
      }
      const trigger = async (api: StudioApi, s: Scenario, tag: string): Promise<RunRef> => {
        const path = `/api/hooks/workflows/${workflowIds.get(s.id)}/runs`;
        const response = await call(api, "POST", path, { context: { tag } }, key);
        expect(response.status, `${s.name}: ${JSON.stringify(response.body.error)}`).toBe(202);
        return { runId: String(response.body.data.run_id), tag };
      };
      const finish = async (api: StudioApi, s: Scenario, run: RunRef) => {
        if (s.point === "human") {
          await waitForStatus(api, run.runId, ["waiting"], 60_000);
          const resumed = await call(api, "POST", `/api/runs/${run.runId}/resume`, { input: { ok: true } });
          expect(resumed.status, s.name).toBe(200);
        }
        return waitForStatus(api, run.runId, ["ok", "error", "cancelled", "timeout", "expired"], 60_000);
      };

      const references = new Map<string, Reference>();
      await Promise.all(
        chain.map(async (s) => {
          const run = await trigger(first.api, s, `${s.id}-ref`);
          const ended = await finish(first.api, s, run);
          expect(ended.status, `${s.name} (uncrashed): ${JSON.stringify(ended.error)}`).toBe("ok");
          const counts = callCounts(receivers, run);
          // Uncrashed, every call is made once, the node under test's too.
          expect(
            Object.values(counts).every((n) => n === 1),
            s.name,
          ).toBe(true);
          expect(
            Object.keys(counts).filter((k) => k.includes(`${s.id}_x`)),
            s.name,
          ).toHaveLength(callsUnderTest(s));
          references.set(s.id, { state: normalise(JSON.stringify(ended.state), run), counts });
        }),
      );
      expect(await first.studio.stop()).toBe(0);

      // 2. The chain: each studio takes over the previous run and is killed at the next one's point.
      const verify = async (api: StudioApi, s: Scenario, run: RunRef) => {
        const ended = await finish(api, s, run);
        expect(ended.status, `${s.name}: ${JSON.stringify(ended.error)}`).toBe("ok");
        const reference = references.get(s.id) as Reference;
        expect(normalise(JSON.stringify(ended.state), run), `${s.name}: state`).toBe(reference.state);

        // Every call as often as uncrashed; the one in flight at the kill twice, with the same key.
        const expected = Object.fromEntries(
          Object.entries(reference.counts).map(([k, n]) => [k, s.point === "call" && k.includes(`${s.id}_x`) ? 2 : n]),
        );
        expect(callCounts(receivers, run), `${s.name}: calls received`).toEqual(expected);
        if (s.point === "call" && s.kind === "http") {
          const attempts = callsOf(receivers, run)
            .filter((c) => c.key.includes(`${s.id}_x`))
            .map((c) => c.attempt);
          expect(attempts.sort(), s.name).toEqual([
            ...Array(callsUnderTest(s)).fill("1"),
            ...Array(callsUnderTest(s)).fill("2"),
          ]);
        }

        // The trace of the turn after the kill says what saved the node's result.
        const events = (await call(api, "GET", `/api/runs/${run.runId}/events?limit=1000`)).body.data as RunEvent[];
        const starts = events.filter((e) => e.type === "run_started");
        expect(
          starts.map((e) => e.data.attempt),
          `${s.name}: attempts`,
        ).toEqual([1, 2]);
        const after = events.slice(events.indexOf(starts[1] as RunEvent));
        const node = nodeUnderTest(s);
        const startedAgain = after.filter((e) => e.type === "node_started" && e.node_id === node);
        const finishedAgain = after.filter((e) => e.type === "node_finished" && e.node_id === node);
        const reused = finishedAgain.map((e) => e.data.reused);
        if (s.point === "call") expect(reused, `${s.name}: called again`).toEqual(Array(callsUnderTest(s)).fill(false));
        if (s.point === "ledger")
          expect(reused, `${s.name}: taken from the ledger`).toEqual(Array(callsUnderTest(s)).fill(true));
        if (s.point === "checkpoint" || s.point === "human")
          expect(startedAgain, `${s.name}: not run again`).toEqual([]);
      };

      let previous: { s: Scenario; run: RunRef } | null = null;
      for (const s of chain) {
        const pause = s.point === "ledger" || s.point === "checkpoint" ? `${s.point}:${nodeUnderTest(s)}` : null;
        const current = await start(pause ? { STUDIO_TEST_PAUSE_AT: pause } : {});
        const tag = `${s.id}-crash`;
        const held = s.point === "call" ? receivers.hold(`hold-${tag}`, callsUnderTest(s)) : null;
        const run = await trigger(current.api, s, tag);
        const marker = `${PAUSE_MARKER} ${pause} run=${run.runId} `;
        const markers = s.point === "ledger" ? callsUnderTest(s) : 1;
        const atKillPoint = async () => {
          if (held) await held;
          else if (pause)
            await current.studio.untilOutput(`${s.name} to pause`, (out) => out.split(marker).length > markers);
          else await waitForStatus(current.api, run.runId, ["waiting"], 60_000);
        };
        const done = previous;
        await Promise.all([atKillPoint(), done && verify(current.api, done.s, done.run)]);
        await current.studio.kill();
        previous = { s, run };
      }
      const last = await start();
      if (previous) await verify(last.api, previous.s, previous.run);
      expect(await last.studio.stop()).toBe(0);
      console.log(
        `crash kill points, ${inject("dbKind")} chain ${chainNumber}: ${chain.length} kill/restart cycles in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    },
    600_000,
  );
});
