// The studio starts without its heavy packages (LangGraph, the LLM SDKs, mail, the code sandbox,
// the API reference, the HTTP client, the PostgreSQL driver, the Redis queue) and loads each on first use. The
// real server runs with a preload that records every module it loads.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeOpenAI, type FakeServer } from "./fake-openai-server.js";
import { call, type StudioApi, setUp, waitForStatus } from "./studio-api.js";
import { assertBuilt, reapStudioProcesses, type StudioProcess, startStudioProcess } from "./studio-process.js";

const TRACE = fileURLToPath(new URL("./module-trace.mjs", import.meta.url));

/** Loaded only when a workflow or a visitor needs them; never at start. */
const HEAVY = [
  "@langchain/langgraph",
  "@langchain/langgraph-checkpoint",
  "@langchain/core",
  "@langchain/openai",
  "@langchain/anthropic",
  "openai",
  "@anthropic-ai/sdk",
  "langsmith",
  "nodemailer",
  "quickjs-emscripten",
  "pyodide",
  "@fastify/swagger",
  "@fastify/swagger-ui",
  "yaml",
  "undici",
  "pg",
  // The Redis mode's queue and bus: only with REDIS_URL.
  "bullmq",
  "ioredis",
];

function packageOf(url: string): string | null {
  return /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? null;
}

// With the run thread (the default), runs load the engine on that thread: the thread that answers
// requests never loads it. Without, the one thread loads what the run needs, and only that.
describe.each(["1", "0"])("modules loaded by the studio, STUDIO_RUN_THREADS=%s", (runThreads) => {
  let studio: StudioProcess;
  let llm: FakeServer;
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-lazy-"));

  /** The packages (and our own modules, as "app:<path>") the studio has loaded so far. */
  async function loaded(): Promise<Set<string>> {
    const before = studio.output().length;
    studio.child.kill("SIGUSR2");
    // The line may arrive in several chunks: wait for its end.
    const output = await studio.untilOutput("the module list", (text) =>
      /superstep-test-modules [^\n]*\n/.test(text.slice(before)),
    );
    const line = output
      .slice(before)
      .split("\n")
      .find((l) => l.startsWith("superstep-test-modules ")) as string;
    const urls = JSON.parse(line.slice("superstep-test-modules ".length)) as string[];
    return new Set(
      urls.map((url) => packageOf(url) ?? url.replace(/^.*\/backend\/dist\//, "app:")).filter((name) => name !== null),
    );
  }

  beforeAll(async () => {
    assertBuilt();
    llm = await createFakeOpenAI();
    studio = await startStudioProcess({
      STUDIO_DATA_DIR: dataDir,
      STUDIO_LOG_FORMAT: "json",
      STUDIO_EGRESS_ALLOW: "127.0.0.1",
      STUDIO_RUN_THREADS: runThreads,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${TRACE}`.trim(),
    });
  });
  afterAll(async () => {
    await reapStudioProcesses();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts without the heavy packages, then loads those a run and a docs visit need, and only those", async () => {
    const atStart = await loaded();
    // The record works: what serving needs is in it.
    expect(atStart).toContain("fastify");
    expect(atStart).toContain("kysely");
    expect(HEAVY.filter((name) => atStart.has(name))).toEqual([]);
    expect([...atStart].filter((name) => name.startsWith("app:engine/sandbox/"))).toEqual([]);

    const api: StudioApi = { base: studio.url, token: "" };
    const workflow = {
      name: "ask a model",
      state: [{ name: "answer", type: "string" }],
      nodes: [
        {
          id: "l",
          type: "llm",
          position: { x: 0, y: 0 },
          data: { model: "gpt-test", base_url: llm.url, prompt: "hi", output_field: "answer" },
        },
      ],
      edges: [{ id: "e1", source: "start", target: "l" }],
    };
    const { key, workflowIds } = await setUp(api, [workflow]);
    const started = await call(api, "POST", `/api/hooks/workflows/${workflowIds[0]}/runs`, { input: {} }, key);
    expect(started.status).toBe(202);
    const run = await waitForStatus(api, started.body.data.run_id, ["ok", "error"]);
    expect(run.status).toBe("ok");
    expect((await fetch(`${studio.url}/api/docs`)).status).toBe(200);

    const afterUse = await loaded();
    expect(afterUse).toContain("@fastify/swagger-ui");
    const engine = ["@langchain/langgraph", "@langchain/openai", "openai", "undici"];
    if (runThreads !== "0") {
      expect(afterUse).toContain("app:services/runs/run-thread.js");
      expect(engine.filter((name) => afterUse.has(name))).toEqual([]);
    } else for (const name of engine) expect(afterUse).toContain(name);
    for (const name of ["@langchain/anthropic", "@anthropic-ai/sdk", "nodemailer", "pg"])
      expect(afterUse).not.toContain(name);
  });
});
