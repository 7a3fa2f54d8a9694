// A load of hook triggers over real HTTP: 2,000 triggers, 100 in flight at any moment, against a
// listening server. None is lost or duplicated: every trigger is answered 202 with a run of its
// own, exactly those runs exist, each ends ok with its own input, and each run's events are
// complete and in order. The per-user and per-address limits are raised here: they have tests of
// their own (run-limits.test.ts); this one is about what the server does with all it accepted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const TRIGGERS = 2000;
const IN_FLIGHT = 100;
// Only ends a load that is stuck: on a busy 2-core machine the load takes one to two minutes.
const STUCK_AFTER_MS = 600_000;

/** start → a Condition → end: four events a run (run_started, node_started, node_finished, run_finished). */
const routed = {
  name: "routed",
  state: [{ name: "n", type: "number" }],
  nodes: [{ id: "k", type: "condition", position: { x: 0, y: 0 }, data: { rules: [], default_label: "next" } }],
  edges: [edge("start", "k"), edge("k", "end", "next")],
};

interface Answer {
  n: number;
  status: number;
  runId: string | null;
  body: string;
}

describe("a load of hook triggers over HTTP", () => {
  let studio: TestStudio;
  let owner: Session;
  let base: string;

  beforeAll(async () => {
    studio = await startTestStudio({
      // As `superstep start` runs them: on run threads.
      STUDIO_RUN_THREADS: "2",
      STUDIO_USER_RUN_RATE: "100000",
      STUDIO_USER_MAX_QUEUED: "1000000",
      STUDIO_HOOK_RATE_LIMIT: "1000000",
    });
    await studio.container.runs.start(60_000);
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = studio.app.server.address() as { port: number };
    base = `http://127.0.0.1:${port}`;
    owner = await setupOwner(studio);
  });
  afterAll(() => studio.close());

  it(
    `turns ${TRIGGERS} triggers at ${IN_FLIGHT} in flight into ${TRIGGERS} runs that all end ok, events complete and in order`,
    async () => {
      const workflowId = (
        await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: routed })
      ).json().data.id as string;
      const key = (
        await studio.app.inject({
          method: "POST",
          url: "/api/api-keys",
          headers: owner.auth,
          payload: { name: "load" },
        })
      ).json().data.key as string;

      const answers: Answer[] = [];
      let next = 0;
      const worker = async () => {
        for (let n = next++; n < TRIGGERS; n = next++) {
          const response = await fetch(`${base}/api/hooks/workflows/${workflowId}/runs`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ input: { n } }),
          });
          const body = await response.text();
          const runId = response.status === 202 ? (JSON.parse(body).data.run_id as string) : null;
          answers.push({ n, status: response.status, runId, body });
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

      expect(answers.filter((a) => a.status !== 202)).toEqual([]);
      const accepted = new Set(answers.map((a) => a.runId));
      expect(accepted.size).toBe(TRIGGERS);

      await studio.container.runs.idle();
      const { db } = studio.container.database;
      const runs = await db
        .selectFrom("runs")
        .select(["id", "status", "state"])
        .where("workflow_id", "=", workflowId)
        .execute();
      expect(runs).toHaveLength(TRIGGERS);
      expect(new Set(runs.map((r) => r.id))).toEqual(accepted);
      expect(runs.filter((r) => r.status !== "ok")).toEqual([]);
      // Each run kept its own input: the n each trigger sent is the n its run ended with.
      const inputOf = new Map(answers.map((a) => [a.runId, a.n]));
      expect(runs.filter((r) => JSON.parse(r.state as string).n !== inputOf.get(r.id))).toEqual([]);

      const events = await db
        .selectFrom("run_events")
        .innerJoin("runs", "runs.id", "run_events.run_id")
        .select(["run_events.run_id", "run_events.seq", "run_events.type", "run_events.node_id"])
        .where("runs.workflow_id", "=", workflowId)
        .orderBy("run_events.run_id")
        .orderBy("run_events.seq")
        .execute();
      const byRun = new Map<string, { seq: number; type: string; node_id: string | null }[]>();
      for (const event of events) {
        const list = byRun.get(event.run_id) ?? [];
        list.push(event);
        byRun.set(event.run_id, list);
      }
      expect(byRun.size).toBe(TRIGGERS);
      // Complete and in order: seq 1..n without a gap, opened by run_started, closed by the one
      // run_finished, with the Condition's start and finish between them.
      const broken = [...byRun].filter(([, list]) => {
        const types = list.map((e) => e.type);
        return (
          list.some((e, index) => e.seq !== index + 1) ||
          types[0] !== "run_started" ||
          types.at(-1) !== "run_finished" ||
          types.filter((t) => t === "run_finished").length !== 1 ||
          types.indexOf("node_started") < 0 ||
          types.indexOf("node_started") > types.indexOf("node_finished")
        );
      });
      expect(broken).toEqual([]);
    },
    STUCK_AFTER_MS,
  );
});
