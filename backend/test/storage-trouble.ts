// Shared by the tests of a locked database and of a full disk: a studio whose error log lines are
// kept, with a user, an API key and a workflow whose run waits at a gate until released.
import { expect } from "vitest";
import type { OpenOptions } from "../src/repositories/database.js";
import { type Gate, gatedWorkflow } from "./engine-harness.js";
import { until } from "./studio-api.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "./test-studio.js";

export interface LogLine {
  level: number;
  msg: string;
  runId?: string;
  task?: string;
}

const ERROR = 50;

/** A run as GET /api/runs/{id} shows it (the fields these tests read). */
export interface RunSeen {
  status: string;
  attempt: number;
  state: Record<string, unknown> | null;
}

export interface HookAnswer {
  status: number;
  retryAfter: string | undefined;
  body: { data?: { run_id: string }; error?: { code: string; details: Record<string, unknown> } };
}

export interface TroubleStudio {
  studio: TestStudio;
  owner: Session;
  lines: LogLine[];
  /** Triggers the gated workflow through the hook route (app.inject). */
  trigger(): Promise<HookAnswer>;
  workflowId: string;
  getRun(id: string): Promise<RunSeen>;
  /** Resolves with the first error log line about `runId` whose message starts with `prefix`. */
  logged(runId: string, prefix: string): Promise<LogLine>;
  /** Waits for the run to leave queued/running, and checks its events are complete and in order. */
  ended(runId: string): Promise<RunSeen>;
}

export async function openTroubleStudio(
  env: Record<string, string>,
  gate: Gate,
  options: { database?: OpenOptions } = {},
): Promise<TroubleStudio> {
  const lines: LogLine[] = [];
  const studio = await startTestStudio(
    { STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_LOG_LEVEL: "warn", ...env },
    { logTo: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) }, database: options.database },
  );
  const owner = await setupOwner(studio);
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "k" } })
  ).json().data.key as string;
  const workflowId = (
    await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      payload: gatedWorkflow(gate.url, "held"),
    })
  ).json().data.id as string;
  const getRun = async (id: string): Promise<RunSeen> =>
    (await studio.app.inject({ method: "GET", url: `/api/runs/${id}`, headers: owner.auth })).json().data;
  return {
    studio,
    owner,
    lines,
    workflowId,
    getRun,
    trigger: async () => {
      const response = await studio.app.inject({
        method: "POST",
        url: `/api/hooks/workflows/${workflowId}/runs`,
        headers: { authorization: `Bearer ${key}` },
        payload: {},
      });
      const retryAfter = response.headers["retry-after"];
      return {
        status: response.statusCode,
        retryAfter: retryAfter as string | undefined,
        body: response.json() as HookAnswer["body"],
      };
    },
    logged: (runId, prefix) =>
      until(`"${prefix}" logged for ${runId}`, async () =>
        lines.find((line) => line.level >= ERROR && line.runId === runId && line.msg.startsWith(prefix)),
      ),
    ended: async (runId) => {
      const run = await until(`run ${runId} to end`, async () => {
        const row = await getRun(runId);
        return ["queued", "running"].includes(row.status) ? undefined : row;
      });
      const events = await studio.container.database.db
        .selectFrom("run_events")
        .select(["seq", "type"])
        .where("run_id", "=", runId)
        .orderBy("seq")
        .execute();
      expect(events.map((e) => e.seq)).toEqual(events.map((_, index) => index + 1));
      expect(events[0]?.type).toBe("run_started");
      expect(events.at(-1)?.type).toBe("run_finished");
      expect(events.filter((e) => e.type === "run_finished")).toHaveLength(1);
      return run;
    },
  };
}
