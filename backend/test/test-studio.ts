// A real studio for a test: a fresh database (SQLite in a temp dir, or a new PostgreSQL
// database), migrations applied, the Fastify app built. Requests go through app.inject.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DestinationStream } from "pino";
import { buildApp } from "../src/api/app.js";
import { buildContainer, type Container } from "../src/api/deps.js";
import { type Config, loadConfig } from "../src/core/config.js";
import { createLogger } from "../src/core/logging.js";
import type { OpenOptions } from "../src/repositories/database.js";
import { testDatabaseEnv } from "./test-database.js";

export type StudioApp = Awaited<ReturnType<typeof buildApp>>;

export interface TestStudio {
  app: StudioApp;
  container: Container;
  config: Config;
  /** The JWT secret the server generated in its data dir. */
  jwtSecret(): string;
  close(): Promise<void>;
}

/**
 * `logTo` receives the studio's JSON log lines (set STUDIO_LOG_LEVEL in `env` to see them);
 * `database` changes how the database is opened (e.g. how the WAL file is flushed).
 */
export async function startTestStudio(
  env: Record<string, string> = {},
  options: { logTo?: DestinationStream; database?: OpenOptions } = {},
): Promise<TestStudio> {
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-test-"));
  const database = await testDatabaseEnv();
  const fullEnv: Record<string, string> = {
    STUDIO_DATA_DIR: dataDir,
    STUDIO_LOG_LEVEL: "silent",
    // Tests reach into the executor (fake clocks, failing disks, log lines): runs execute on the
    // test's thread unless a test asks for run threads (run-thread.test.ts, the built studio).
    STUDIO_RUN_THREADS: "0",
    ...database.env,
    ...env,
  };
  const config = loadConfig(fullEnv);
  const container = await buildContainer(config, createLogger(config.logLevel, "json", options.logTo), {
    database: options.database,
  });
  const app = await buildApp(container);
  await app.ready();
  return {
    app,
    container,
    config,
    jwtSecret: () => readFileSync(join(dataDir, "jwt-secret"), "utf8").trim(),
    close: async () => {
      await app.close();
      await container.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Session {
  token: string;
  userId: string;
  auth: { authorization: string };
}

export async function setupOwner(
  studio: TestStudio,
  email = "owner@example.com",
  password = "owner-password",
): Promise<Session> {
  const response = await studio.app.inject({ method: "POST", url: "/api/auth/setup", payload: { email, password } });
  if (response.statusCode !== 201) throw new Error(`setup failed: ${response.statusCode} ${response.body}`);
  const { token, user } = response.json().data;
  return { token, userId: user.id, auth: { authorization: `Bearer ${token}` } };
}

export async function registerMember(
  studio: TestStudio,
  email: string,
  password = "member-password",
): Promise<Session> {
  const response = await studio.app.inject({ method: "POST", url: "/api/auth/register", payload: { email, password } });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const { token, user } = response.json().data;
  return { token, userId: user.id, auth: { authorization: `Bearer ${token}` } };
}

export function sampleDocument(name = "Support triage") {
  return {
    name,
    state: [
      { name: "message", type: "string" },
      { name: "answer", type: "string" },
    ],
    nodes: [
      {
        id: "n1",
        type: "llm",
        position: { x: 0, y: 0 },
        data: { label: "Reply", model: "gpt-4o-mini", prompt: "Hi {{state.message}}", output_field: "answer" },
      },
    ],
    edges: [
      { id: "e1", source: "start", target: "n1" },
      { id: "e2", source: "n1", target: "end" },
    ],
  };
}

/**
 * Saves `document`, starts it through the hook route with a new API key, waits until the queue
 * is idle, and reads back the run and its events.
 */
export async function runThroughHook(studio: TestStudio, session: Session, document: object) {
  const workflowId = (
    await studio.app.inject({ method: "POST", url: "/api/workflows", headers: session.auth, payload: document })
  ).json().data.id;
  const key = (
    await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: session.auth, payload: { name: "hook" } })
  ).json().data.key;
  const started = await studio.app.inject({
    method: "POST",
    url: `/api/hooks/workflows/${workflowId}/runs`,
    headers: { authorization: `Bearer ${key}` },
    payload: {},
  });
  if (started.statusCode !== 202) throw new Error(`hook refused: ${started.statusCode} ${started.body}`);
  await studio.container.runs.idle();
  const runId = started.json().data.run_id as string;
  const run = await studio.app.inject({ method: "GET", url: `/api/runs/${runId}`, headers: session.auth });
  const events = await studio.app.inject({ method: "GET", url: `/api/runs/${runId}/events`, headers: session.auth });
  return { runId, run: run.json().data, runBody: run.body, eventsBody: events.body };
}
