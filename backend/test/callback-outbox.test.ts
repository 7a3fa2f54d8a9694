// A callback waiting for its retry survives a SIGKILL of the server: the pending delivery is kept
// in the database (the outbox) and the next server delivers it, with exactly the attempts expected.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../src/repositories/database.js";
import { edge, type Receiver, startReceiver } from "./engine-harness.js";
import { call, openStudioDatabase, setUp, until, waitForStatus } from "./studio-api.js";
import { assertBuilt, reapStudioProcesses, startStudioProcess } from "./studio-process.js";
import { testDatabaseEnv } from "./test-database.js";

const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

describe("callback outbox across a crash", () => {
  let receiver: Receiver;
  let dataDir: string;
  let env: Record<string, string>;
  let dropDatabase: () => Promise<void>;
  let database: DatabaseHandle | undefined;

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
    dataDir = mkdtempSync(join(tmpdir(), "superstep-outbox-"));
    const db = await testDatabaseEnv();
    dropDatabase = db.drop;
    env = {
      STUDIO_DATA_DIR: dataDir,
      STUDIO_LOG_FORMAT: "json",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      // The first retry is an hour away: the kill always comes before it.
      STUDIO_CALLBACK_RETRY_BASE_MS: "3600000",
      ...db.env,
    };
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await receiver.close();
    await database?.close();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
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

    database = openStudioDatabase(dataDir, env);
    const db = database.db;
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
