// The runs page's backend: the run list's filters (workflow, status, trigger, schedule, time range,
// id search) with what each row shows, and the per-node figures over a workflow's newest runs
// (the editor's heat-map overlay), read from the events of real runs. Every bad value is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge } from "../../test/engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "../../test/fake-openai-server.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import type { Actor } from "../core/authz.js";
import { RunRepository } from "../repositories/run.repository.js";
import { RunStatsRepository } from "../repositories/run-stats.repository.js";
import { WorkflowRepository } from "../repositories/workflow.repository.js";
import { NodeStatsService } from "../services/runs/node-stats.service.js";
import { RunCompareService } from "../services/runs/run-compare.service.js";

const SERVER_KEY = "sk-server-secret-0123456789";

const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

/** An LLM node, then a Code node that fails when the input says so. */
const modelThenCode = (baseUrl: string) => ({
  name: "model then code",
  state: [
    { name: "fail", type: "boolean" },
    { name: "answer", type: "string" },
    { name: "n", type: "number" },
  ],
  nodes: [
    {
      id: "l",
      type: "llm",
      position: { x: 0, y: 0 },
      data: { model: "gpt-test", base_url: baseUrl, prompt: "hi", output_field: "answer" },
    },
    {
      id: "c",
      type: "code",
      position: { x: 0, y: 100 },
      data: {
        language: "javascript",
        code: "function main(s) { if (s.fail) throw new Error('asked to fail'); return { n: 1 }; }",
        outputs: ["n"],
      },
    },
  ],
  edges: [edge("start", "l"), edge("l", "c"), edge("c", "end")],
});

interface ListedRun {
  id: string;
  workflow_id: string | null;
  workflow_name: string | null;
  workflow_version: number | null;
  trigger: string;
  status: string;
  error_code: string | null;
  schedule_id: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
}

describe("the runs page", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let llm: FakeServer;
  let key: { authorization: string };
  let quickId: string;
  let modelId: string;
  const runs: Record<string, string> = {};

  const api = (url: string, session = owner) => studio.app.inject({ method: "GET", url, headers: session.auth });
  const list = async (query: string, session = owner): Promise<ListedRun[]> => {
    const response = await api(`/api/runs?${query}`, session);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data;
  };
  const save = async (document: object) =>
    (await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: document })).json()
      .data.id as string;
  const hook = async (workflowId: string, input: object) => {
    const started = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: key,
      payload: { input },
    });
    expect(started.statusCode, started.body).toBe(202);
    await studio.container.runs.idle();
    return started.json().data.run_id as string;
  };
  const setCreated = (id: string, at: string) =>
    studio.container.database.db.updateTable("runs").set({ created_at: at }).where("id", "=", id).execute();

  /** The durations the events of these runs recorded for a node, sorted. */
  const durations = async (runIds: string[], nodeId: string) => {
    const all: number[] = [];
    for (const id of runIds) {
      const events = (await api(`/api/runs/${id}/events`)).json().data as {
        type: string;
        node_id?: string;
        data: { duration_ms?: number };
      }[];
      for (const e of events)
        if (e.type === "node_finished" && e.node_id === nodeId) all.push(e.data.duration_ms as number);
    }
    return all.sort((a, b) => a - b);
  };

  beforeAll(async () => {
    llm = await createFakeOpenAI({
      reply: () => ({ text: "hello there", usage: { input_tokens: 10, output_tokens: 4 } }),
    });
    studio = await startTestStudio({
      STUDIO_ALLOW_SIGNUP: "1",
      OPENAI_API_KEY: SERVER_KEY,
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      STUDIO_SERVER_KEY_ENDPOINTS: llm.url,
      STUDIO_USER_RUN_RATE: "10000",
      STUDIO_USER_MAX_QUEUED: "10000",
    });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    key = {
      authorization: `Bearer ${(await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "hooks" } })).json().data.key}`,
    };
    quickId = await save(quick);
    modelId = await save(modelThenCode(llm.url));
    const actor: Actor = { userId: owner.userId, role: "owner", via: "session" };
    // Oldest first: an api run, an editor run, a cli run of an unsaved document, then three runs
    // of the model workflow (the last one fails at its Code node).
    runs.api = await hook(quickId, { n: 1 });
    runs.editor = (await studio.container.runs.startEditorRun(actor, { workflowId: quickId }, { input: { n: 2 } })).id;
    runs.cli = (await studio.container.runs.createForDocument(actor, quick, { input: { n: 3 } }, "cli", "queue")).id;
    await studio.container.runs.idle();
    runs.ok1 = await hook(modelId, { fail: false });
    runs.ok2 = await hook(modelId, { fail: false });
    runs.failed = await hook(modelId, { fail: true });
    const order = ["api", "editor", "cli", "ok1", "ok2", "failed"];
    for (const [i, name] of order.entries()) {
      await setCreated(runs[name] as string, `2030-01-0${i + 1}T00:00:00.000Z`);
    }
  });
  afterAll(async () => {
    await studio.close();
    await llm.close();
  });

  describe("run list", () => {
    it("shows what the runs page needs for each run", async () => {
      const [failed] = await list(`q=${runs.failed}`);
      expect(failed).toMatchObject({
        id: runs.failed,
        workflow_id: modelId,
        workflow_name: "model then code",
        workflow_version: 1,
        trigger: "api",
        status: "error",
        error_code: "CODE_ERROR",
        schedule_id: null,
        created_at: "2030-01-06T00:00:00.000Z",
      });
      expect(failed?.duration_ms).toBe(
        Date.parse(failed?.finished_at as string) - Date.parse(failed?.started_at as string),
      );
      const [cli] = await list(`q=${runs.cli}`);
      expect(cli).toMatchObject({
        trigger: "cli",
        status: "ok",
        workflow_id: null,
        workflow_name: null,
        error_code: null,
      });
    });

    it("filters by trigger, status and workflow", async () => {
      expect((await list("trigger=editor")).map((r) => r.id)).toEqual([runs.editor]);
      expect((await list("trigger=cli")).map((r) => r.id)).toEqual([runs.cli]);
      expect((await list("trigger=api")).map((r) => r.id)).toEqual([runs.failed, runs.ok2, runs.ok1, runs.api]);
      expect((await list("trigger=schedule")).map((r) => r.id)).toEqual([]);
      expect((await list("status=error")).map((r) => r.id)).toEqual([runs.failed]);
      expect((await list(`workflow_id=${quickId}&trigger=api`)).map((r) => r.id)).toEqual([runs.api]);
    });

    it("filters by created time, both ends included, in any offset", async () => {
      expect((await list("from=2030-01-05T00:00:00Z")).map((r) => r.id)).toEqual([runs.failed, runs.ok2]);
      // 07:00 in UTC+7 is midnight UTC: the run created then is included.
      expect((await list("to=2030-01-02T07:00:00%2B07:00")).map((r) => r.id)).toEqual([runs.editor, runs.api]);
      expect((await list("from=2030-01-02T00:00:00Z&to=2030-01-03T00:00:00Z")).map((r) => r.id)).toEqual([
        runs.cli,
        runs.editor,
      ]);
      expect(await list("from=2030-01-02T00:00:00Z&to=2030-01-02T00:00:00Z")).toHaveLength(1);
    });

    it("finds a run by its id or the start of it, in any case", async () => {
      const id = runs.ok1 as string;
      expect((await list(`q=${id}`)).map((r) => r.id)).toEqual([id]);
      // Past the time the id starts with (UUIDv7), into its random part: runs of the same
      // millisecond share the first 13 characters.
      expect((await list(`q=${id.slice(0, 28).toUpperCase()}`)).map((r) => r.id)).toEqual([id]);
      expect(await list("q=ffffffff-ffff-ffff")).toEqual([]);
    });

    it("finds a run by the end of its id, the short id the runs page shows", async () => {
      // Every run of this suite was created within the same minutes: a UUIDv7's first characters are
      // its time and are shared; its last ones are random.
      const id = runs.ok1 as string;
      expect((await list(`q=${id.slice(-8).toUpperCase()}`)).map((r) => r.id)).toEqual([id]);
      expect((await list(`q=${id.slice(-17)}`)).map((r) => r.id)).toEqual([id]);
      // A part from the middle is neither a start nor an end.
      expect(await list(`q=${id.slice(9, 18)}`)).toEqual([]);
    });

    it("never lists another user's runs, whatever the filter", async () => {
      expect(await list(`q=${runs.ok1}`, other)).toEqual([]);
      expect(await list("trigger=api", other)).toEqual([]);
    });

    it("refuses a range that ends before it starts with RUN_FILTER_RANGE_INVALID", async () => {
      const response = await api("/api/runs?from=2030-01-03T00:00:00Z&to=2030-01-02T00:00:00Z");
      expect(response.statusCode).toBe(422);
      expect(response.json().error).toMatchObject({
        code: "RUN_FILTER_RANGE_INVALID",
        details: { from: "2030-01-03T00:00:00Z", to: "2030-01-02T00:00:00Z" },
      });
    });

    it.each([
      ["status=finished", "status"],
      ["trigger=webhook", "trigger"],
      ["from=yesterday", "from"],
      ["to=2030-13-01T00:00:00Z", "to"],
      ["from=2030-01-01", "from"],
      ["q=run%25", "q"],
      ["q=not-an-id", "q"],
      ["limit=0", "limit"],
      ["colour=red", ""],
    ])("refuses %s with VALIDATION_FAILED naming the field", async (query, field) => {
      const response = await api(`/api/runs?${query}`);
      expect(response.statusCode).toBe(422);
      const error = response.json().error;
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(JSON.stringify(error.details)).toContain(field || "colour");
    });
  });

  describe("node stats", () => {
    const stats = async (query = "", workflowId = modelId, session = owner) => {
      const response = await api(`/api/workflows/${workflowId}/node-stats${query}`, session);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data;
    };

    it("counts each node over the workflow's newest runs: runs, times, errors and tokens", async () => {
      const answer = await stats("?runs=20");
      expect(answer).toMatchObject({ workflow_id: modelId, runs_requested: 20, runs_counted: 3, truncated: false });
      const byNode = Object.fromEntries(answer.nodes.map((n: { node_id: string }) => [n.node_id, n]));
      expect(Object.keys(byNode).sort()).toEqual(["c", "l"]);
      const l = await durations([runs.ok1, runs.ok2, runs.failed] as string[], "l");
      expect(l).toHaveLength(3);
      expect(byNode.l).toEqual({
        node_id: "l",
        runs: 3,
        executions: 3,
        error_runs: 0,
        error_rate: 0,
        median_ms: l[1],
        p95_ms: l[2],
        input_tokens: 30,
        output_tokens: 12,
        avg_input_tokens: 10,
        avg_output_tokens: 4,
      });
      const c = await durations([runs.ok1, runs.ok2] as string[], "c");
      expect(byNode.c).toEqual({
        node_id: "c",
        runs: 3,
        executions: 2,
        error_runs: 1,
        error_rate: 1 / 3,
        median_ms: ((c[0] as number) + (c[1] as number)) / 2,
        p95_ms: c[1],
        input_tokens: 0,
        output_tokens: 0,
        avg_input_tokens: 0,
        avg_output_tokens: 0,
      });
    });

    it("counts only the newest N runs", async () => {
      const answer = await stats("?runs=1");
      expect(answer).toMatchObject({ runs_requested: 1, runs_counted: 1, truncated: false });
      const c = answer.nodes.find((n: { node_id: string }) => n.node_id === "c");
      // The newest run is the one that failed.
      expect(c).toMatchObject({ runs: 1, executions: 0, error_runs: 1, error_rate: 1, median_ms: null, p95_ms: null });
    });

    it("reads no more events than its budget: fewer whole runs, and says so", async () => {
      const repository = new RunStatsRepository(studio.container.database.db);
      const counts = await repository.countNodeEvents([runs.failed, runs.ok2] as string[]);
      const newestTwo = (counts.get(runs.failed as string) ?? 0) + (counts.get(runs.ok2 as string) ?? 0);
      expect(newestTwo).toBeGreaterThan(0);
      const service = new NodeStatsService({
        stats: repository,
        workflows: new WorkflowRepository(studio.container.database.db),
        eventBudget: newestTwo,
      });
      const actor: Actor = { userId: owner.userId, role: "owner", via: "session" };
      const answer = await service.forWorkflow(actor, modelId, 20);
      expect(answer).toMatchObject({ runs_requested: 20, runs_counted: 2, truncated: true });
      expect(answer.nodes.find((n) => n.node_id === "l")).toMatchObject({ runs: 2, input_tokens: 20 });
    });

    it("answers a workflow without runs with no nodes", async () => {
      const fresh = await save({ ...quick, name: "never run" });
      expect(await stats("", fresh)).toEqual({
        workflow_id: fresh,
        runs_requested: 20,
        runs_counted: 0,
        truncated: false,
        nodes: [],
      });
    });

    it.each(["?runs=0", "?runs=201", "?runs=ten", "?runs=2.5", "?last=5"])(
      "refuses %s with VALIDATION_FAILED",
      async (query) => {
        const response = await api(`/api/workflows/${modelId}/node-stats${query}`);
        expect(response.statusCode).toBe(422);
        expect(response.json().error.code).toBe("VALIDATION_FAILED");
      },
    );

    it("answers 404 WORKFLOW_NOT_FOUND for another user's workflow or none", async () => {
      for (const response of [
        await api(`/api/workflows/${modelId}/node-stats`, other),
        await api("/api/workflows/no-such-workflow/node-stats"),
      ]) {
        expect(response.statusCode).toBe(404);
        expect(response.json().error.code).toBe("WORKFLOW_NOT_FOUND");
      }
    });
  });

  describe("compare two runs", () => {
    const compare = (query: string, session = owner) => api(`/api/runs/compare?${query}`, session);

    it("shows two runs of a workflow side by side: state, and each node's status, time, output and tokens", async () => {
      const response = await compare(`a=${runs.ok1}&b=${runs.failed}`);
      expect(response.statusCode, response.body).toBe(200);
      const answer = response.json().data;
      expect(answer.workflow_id).toBe(modelId);
      expect(answer.a).toMatchObject({ id: runs.ok1, status: "ok", error_code: null, input: { fail: false } });
      expect(answer.b).toMatchObject({
        id: runs.failed,
        status: "error",
        error_code: "CODE_ERROR",
        input: { fail: true },
      });
      expect([answer.a.truncated, answer.b.truncated]).toEqual([false, false]);
      const field = (name: string) => answer.state.find((f: { field: string }) => f.field === name);
      expect(field("fail")).toEqual({ field: "fail", a: false, b: true, equal: false });
      expect(field("answer")).toEqual({ field: "answer", a: "hello there", b: "hello there", equal: true });
      expect(answer.nodes.map((n: { node_id: string }) => n.node_id)).toEqual(["l", "c"]);
      const [l, c] = answer.nodes;
      const [lA] = await durations([runs.ok1 as string], "l");
      expect(l.a).toEqual({
        status: "ok",
        executions: 1,
        duration_ms: lA,
        reused: false,
        output: { answer: "hello there" },
        error: null,
        input_tokens: 10,
        output_tokens: 4,
      });
      expect(l.b).toMatchObject({ status: "ok", executions: 1, input_tokens: 10, output_tokens: 4 });
      const [cA] = await durations([runs.ok1 as string], "c");
      expect(c.a).toMatchObject({ status: "ok", executions: 1, duration_ms: cA, output: { n: 1 }, error: null });
      expect(c.b).toMatchObject({ status: "error", executions: 0, duration_ms: 0, output: null });
      expect(c.b.error).toMatchObject({ code: "CODE_ERROR" });
    });

    it("reads no more of each run's node events than its budget, and says so", async () => {
      const service = new RunCompareService({
        runs: new RunRepository(studio.container.database.db),
        stats: new RunStatsRepository(studio.container.database.db),
        eventBudget: 2,
      });
      const actor: Actor = { userId: owner.userId, role: "owner", via: "session" };
      const answer = await service.compare(actor, runs.ok1 as string, runs.failed as string);
      expect([answer.a.truncated, answer.b.truncated]).toEqual([true, true]);
      // The first two node events of each: the LLM node started and finished.
      expect(answer.nodes.map((n) => n.node_id)).toEqual(["l"]);
    });

    it("refuses runs of two different workflows, or of an unsaved document, with RUNS_NOT_COMPARABLE", async () => {
      for (const [a, b] of [
        [runs.api, runs.ok1],
        [runs.cli, runs.cli],
      ]) {
        const response = await compare(`a=${a}&b=${b}`);
        expect(response.statusCode).toBe(422);
        expect(response.json().error.code).toBe("RUNS_NOT_COMPARABLE");
      }
    });

    it("answers 404 RUN_NOT_FOUND for another user's run or none, naming it", async () => {
      for (const [query, session, missing] of [
        [`a=${runs.ok1}&b=${runs.ok2}`, other, runs.ok1],
        [`a=${runs.ok1}&b=no-such-run`, owner, "no-such-run"],
      ] as const) {
        const response = await compare(query, session);
        expect(response.statusCode).toBe(404);
        expect(response.json().error).toMatchObject({ code: "RUN_NOT_FOUND", details: { run_id: missing } });
      }
    });

    it.each(["a=x", "b=x", "", "a=&b=x", "a=x&b=y&c=z"])("refuses ?%s with VALIDATION_FAILED", async (query) => {
      const response = await compare(query);
      expect(response.statusCode).toBe(422);
      expect(response.json().error.code).toBe("VALIDATION_FAILED");
    });
  });
});
