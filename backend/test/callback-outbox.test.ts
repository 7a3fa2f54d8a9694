// A callback waiting for its retry survives a SIGKILL of the server: the pending delivery is kept
// in the database (the outbox) and the next server delivers it, with exactly the attempts expected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge, type Receiver, startReceiver } from "./engine-harness.js";
import { call, setUp, until, waitForStatus } from "./studio-api.js";
import { openStudioEnv, type StudioEnv } from "./studio-env.js";
import { assertBuilt, reapStudioProcesses, startStudioProcess } from "./studio-process.js";

const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

describe("callback outbox across a crash", () => {
  let receiver: Receiver;
  let setup: StudioEnv;
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    // The first attempt of each run fails; later ones are accepted.
    const seen = new Set<string>();
    receiver = await startReceiver((request) => {
      const runId = String(request.headers["x-studio-run-id"]);
      if (seen.has(runId)) return { json: { ok: true } };
      seen.add(runId);
      return { status: 503, json: { error: "try later" } };
    });
    // The first retry is an hour away: the kill always comes before it.
    setup = await openStudioEnv("outbox", { STUDIO_CALLBACK_RETRY_BASE_MS: "3600000" });
    env = setup.env;
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await receiver.close();
    await setup?.close();
  });

  it("delivers a pending retry after a SIGKILL and a restart, once", async () => {
    const first = await startStudioProcess(env);
    const api = { base: first.url, token: "" };
    const { key, workflowIds } = await setUp(api, [quick]);
    const response = await call(
      api,
      "POST",
      `/api/hooks/workflows/${workflowIds[0]}/runs`,
      { input: { n: 7 }, callback_url: `${receiver.url}/hook` },
      key,
    );
    const runId = String(response.body.data.run_id);
    await waitForStatus(api, runId, ["ok"]);

    const db = setup.database().db;
    const outboxRow = () => db.selectFrom("callback_outbox").selectAll().where("run_id", "=", runId).executeTakeFirst();
    // The first attempt failed and its retry is scheduled: the server dies while it waits.
    const waiting = await until("the first attempt to be recorded", async () => {
      const row = await outboxRow();
      return row?.attempts === 1 ? row : undefined;
    });
    expect(waiting).toMatchObject({ status: "pending", claimed_by: null });
    expect(Date.parse(waiting.next_attempt_at)).toBeGreaterThan(Date.now() + 1800_000);
    await first.kill();

    // While the server is down, the hour passes (the retry time is moved, not waited for).
    await db
      .updateTable("callback_outbox")
      .set({ next_attempt_at: new Date(Date.now() - 1000).toISOString() })
      .where("run_id", "=", runId)
      .execute();
    const second = await startStudioProcess(env);
    const delivered = await until("the retry to be delivered", async () => {
      const row = await outboxRow();
      return row?.status === "delivered" ? row : undefined;
    });
    expect(delivered).toMatchObject({ attempts: 2, claimed_by: null });

    const calls = receiver.requests.filter((r) => r.headers["x-studio-run-id"] === runId);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body).toMatchObject({ run_id: runId, status: "ok", output: { n: 7 } });
    const attempts = await db
      .selectFrom("callback_deliveries")
      .select(["attempt", "status_code"])
      .where("run_id", "=", runId)
      .orderBy("attempt")
      .execute();
    expect(attempts).toEqual([
      { attempt: 1, status_code: 503 },
      { attempt: 2, status_code: 200 },
    ]);
    expect(await second.stop()).toBe(0);
    expect(receiver.requests.filter((r) => r.headers["x-studio-run-id"] === runId)).toHaveLength(2);
  });
});
