// Talking to a studio that runs as its own process (studio-process.ts) over real HTTP, and reading
// its database from the test.
import { type DatabaseHandle, openDatabase } from "../src/repositories/database.js";

export interface StudioApi {
  base: string;
  token: string;
}

export async function call(api: StudioApi, method: string, path: string, body?: unknown, auth = api.token) {
  const response = await fetch(`${api.base}${path}`, {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  // biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely
  return { status: response.status, body: (await response.json()) as { data: any; error?: any } };
}

/**
 * Polls until `check` returns a value (not undefined), or fails after `timeoutMs`: for what must
 * eventually happen in another process or the database, where there is no event to wait on. The
 * bound is generous so that a busy machine is slow, never wrong.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function waitForStatus(api: StudioApi, runId: string, statuses: string[], timeoutMs = 60_000) {
  return until(
    `run ${runId} to be ${statuses.join(" or ")}`,
    async () => {
      const run = (await call(api, "GET", `/api/runs/${runId}`)).body.data;
      return statuses.includes(String(run.status)) ? run : undefined;
    },
    timeoutMs,
  );
}

/** The owner account, an API key and the given workflows, created through the API. */
export async function setUp(api: StudioApi, workflows: object[]): Promise<{ key: string; workflowIds: string[] }> {
  const setup = await call(api, "POST", "/api/auth/setup", { email: "owner@example.com", password: "owner-password" });
  api.token = setup.body.data.token;
  const key = String((await call(api, "POST", "/api/api-keys", { name: "hooks" })).body.data.key);
  const workflowIds: string[] = [];
  for (const workflow of workflows)
    workflowIds.push(String((await call(api, "POST", "/api/workflows", workflow)).body.data.id));
  return { key, workflowIds };
}

/** The studio's database, opened from the test (SQLite file in the data dir, or DATABASE_URL). */
export function openStudioDatabase(dataDir: string, env: Record<string, string>): DatabaseHandle {
  return openDatabase({ databaseUrl: env.DATABASE_URL ?? null, dataDir });
}
