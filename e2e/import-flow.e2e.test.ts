// Repo import from end to end, as a person does it, against the built studio with the Docker
// runtime on the real engine (the registry-free superstep-python:local image, installs from the
// offline wheel directory, every container on network `none`):
// - a project shaped like new-langgraph-project, uploaded as a zip (English): its steps run to
//   ready, the graph picker shows the graph, "Create workflow" opens the editor read-only with
//   the banner and the node's Python source, and a run with a runtime context ends `ok`, its trace
//   holding the node's output;
// - a project shaped like react-agent, cloned from a git repository served on this machine
//   (Vietnamese): the picker shows the loop, the editor draws its conditional edges dashed, and a
//   run fails naming the provider keys the repository declares and the server does not pass in;
// - the other way round through the API alone: the first shape from git runs `ok`, the second from
//   a zip fails naming its keys.
// axe-core runs on each view; screenshots go to test-results/screenshots.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addBareRepo } from "../backend/test/git-fixture.js";
import { makeZip } from "../backend/test/zip-fixture.js";
import { NEW_LANGGRAPH_PROJECT, REACT_AGENT } from "./import-fixture-repos.js";
import { api, type Lang, openContext, screenshot, seriousViolations, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const IMAGE = "superstep-python:local";

interface ImportJob {
  id: string;
  status: string;
  error: { code: string } | null;
  graphs: { id: string; inspected: { ok: boolean } | null }[];
}
interface RunView {
  id: string;
  status: string;
  output: Record<string, unknown> | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
}

const TEXT = {
  en: { done: "Done", url: "GitHub URL", import: "Import from GitHub" },
  vi: { done: "Xong", url: "URL GitHub", import: "Nhập từ GitHub" },
} as const;

/** A project's files under one top folder, as GitHub's "Download ZIP" lays them out. */
function projectZip(files: Record<string, string>): Buffer {
  const top = "project-main/";
  return makeZip([
    { name: top },
    ...Object.entries(files).map(([name, data]) => ({ name: `${top}${name}`, data, deflate: true })),
  ]);
}

const mirror = mkdtempSync(join(tmpdir(), "superstep-e2e-import-mirror-"));
addBareRepo(mirror, "langchain-ai", "react-agent", { files: REACT_AGENT });
addBareRepo(mirror, "langchain-ai", "new-langgraph-project", { files: NEW_LANGGRAPH_PROJECT });
afterAll(() => rmSync(mirror, { recursive: true, force: true }));

beforeAll(() => {
  // CI builds the image before the tests; a machine without it builds it here (no registry).
  execFileSync("bash", [join(ROOT, "scripts/build-python-image.sh"), IMAGE], { stdio: "pipe", timeout: 600_000 });
  execFileSync("bash", [join(ROOT, "scripts/python-wheels.sh")], { stdio: "pipe", timeout: 600_000 });
}, 620_000);

describe("importing a LangGraph repository and running its graph", () => {
  const suite = studioSuite({
    env: {
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_IMPORT_RUNTIME: "docker",
      STUDIO_IMPORT_IMAGE: IMAGE,
      STUDIO_IMPORT_WHEELS: join(ROOT, ".wheels-import"),
      STUDIO_IMPORT_NETWORK: "none",
      STUDIO_TEST_IMPORT_GIT_MIRROR: mirror,
    },
  });

  async function job(id: string): Promise<ImportJob> {
    const response = await api<ImportJob>(suite.studio, "GET", `/api/imports/${id}`, { token: suite.token });
    expect(response.status).toBe(200);
    return response.body.data as ImportJob;
  }

  async function finished(id: string): Promise<ImportJob> {
    await expect.poll(async () => (await job(id)).status, { timeout: 600_000, interval: 500 }).not.toBe("running");
    return job(id);
  }

  async function openImport(lang: Lang) {
    const opened = await openContext(suite.browser, { lang });
    await storeSession(opened.page, suite.studio, suite.token);
    await opened.page.goto(`${suite.studio.url}/workflows`);
    await opened.page.getByTestId("import-repo-entry").click();
    await opened.page.waitForURL(`${suite.studio.url}/import-repo`);
    return opened;
  }

  /** The job the page shows (its id is in the address once the server answered). */
  async function shownJob(page: Page): Promise<string> {
    await page.waitForURL(/[?&]job=/);
    return new URL(page.url()).searchParams.get("job") as string;
  }

  /** Waits for the job to be ready on the page, then creates the workflow from its one graph. */
  async function createFromPicker(page: Page, lang: Lang, shot: string): Promise<void> {
    const id = await shownJob(page);
    const ended = await finished(id);
    expect(ended.status, JSON.stringify(ended.error)).toBe("succeeded");
    const view = page.getByTestId("import-job");
    await expect.poll(() => view.getByTestId("import-status").textContent(), { timeout: 30_000 }).toBe(TEXT[lang].done);
    const graph = page.locator('[data-testid="import-graph"][data-inspection="loaded"]');
    await graph.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, shot);
    await graph.getByTestId("import-create").click();
    await page.waitForURL(/\/workflows\/[^/]+$/);
    await page.getByTestId("imported-banner").waitFor();
  }

  async function runInEditor(page: Page, input: unknown): Promise<void> {
    await page.getByTestId("run-panel-toggle").click();
    await page.locator("#run-input-json").fill(JSON.stringify(input));
    await page.getByTestId("run-start").click();
  }

  const runStatus = (page: Page, status: string) =>
    page.locator(`[data-testid="run-status"][data-status="${status}"]`).waitFor({ timeout: 300_000 });

  it("a new-langgraph-project zip installs, is checked, opens read-only and runs ok with its trace (en)", async () => {
    const { page, context, errors } = await openImport("en");
    await page.getByTestId("import-zip-input").setInputFiles({
      name: "new-langgraph-project-main.zip",
      mimeType: "application/zip",
      buffer: projectZip(NEW_LANGGRAPH_PROJECT),
    });
    await createFromPicker(page, "en", "import-flow-ready-en");

    // Read-only: the node's own Python source, where it comes from, and no editing.
    expect(await page.getByTestId("imported-banner").textContent()).toContain("agent");
    await page.locator('.react-flow__node[data-id="call_model"]').click();
    await expect.poll(() => page.getByTestId("imported-node-code").textContent()).toContain("async def call_model");
    expect(await page.getByTestId("node-settings").textContent()).toContain("src/agent/graph.py:21");
    await page.keyboard.press("Delete");
    expect(await page.locator('.react-flow__node[data-id="call_model"]').count()).toBe(1);

    await runInEditor(page, { changeme: "hi", __context__: { my_configurable_param: "from the e2e" } });
    await runStatus(page, "ok");
    await page.getByTestId("run-tab-trace").click();
    await page.getByTestId("trace-visit-call_model").click();
    await expect.poll(() => page.getByTestId("visit-output").textContent()).toContain("Configured with from the e2e");
    // The sandbox runs the graph whole: no fork, no node alone, no pin, no One step.
    for (const id of ["visit-fork", "visit-run-alone", "visit-pin", "run-step"])
      expect(await page.getByTestId(id).count(), id).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "import-flow-run-ok-en");
    expect(errors).toEqual([]);
    await context.close();
  }, 900_000);

  it("a react-agent repository cloned from git shows its loop and its run names the missing keys (vi)", async () => {
    const { page, context, errors } = await openImport("vi");
    await page.getByLabel(TEXT.vi.url).fill("https://github.com/langchain-ai/react-agent");
    await page.getByRole("button", { name: TEXT.vi.import }).click();
    await createFromPicker(page, "vi", "import-flow-ready-vi");

    // The loop: call_model → tools and back; the model's two ways out are conditional, drawn dashed.
    for (const id of ["call_model", "tools"]) await page.locator(`.react-flow__node[data-id="${id}"]`).waitFor();
    expect(await page.locator(".superstep-edge-conditional").count()).toBe(2);
    expect(await page.getByTestId("imported-env-name").allTextContents()).toEqual(
      expect.arrayContaining(["OPENAI_API_KEY", "TAVILY_API_KEY"]),
    );

    await runInEditor(page, { messages: [{ role: "user", content: "Xin chào" }] });
    await runStatus(page, "error");
    const error = (await page.getByTestId("run-error").textContent()) ?? "";
    expect(error).toContain("OPENAI_API_KEY");
    expect(error).toContain("TAVILY_API_KEY");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "import-flow-run-missing-keys-vi");
    expect(errors).toEqual([]);
    await context.close();
  }, 900_000);

  it("the same two shapes the other way round through the API: git runs ok, the zip fails naming its keys", async () => {
    const token = suite.token;
    const created = await api<ImportJob>(suite.studio, "POST", "/api/imports", {
      token,
      body: { url: "https://github.com/langchain-ai/new-langgraph-project" },
    });
    expect(created.status).toBe(202);
    const fromGit = await finished((created.body.data as ImportJob).id);
    expect(fromGit.status, JSON.stringify(fromGit.error)).toBe("succeeded");

    const form = new FormData();
    form.append(
      "file",
      new Blob([new Uint8Array(projectZip(REACT_AGENT))], { type: "application/zip" }),
      "react-agent-main.zip",
    );
    const upload = await fetch(`${suite.studio.url}/api/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(upload.status).toBe(202);
    const fromZip = await finished(((await upload.json()) as { data: ImportJob }).data.id);
    expect(fromZip.status, JSON.stringify(fromZip.error)).toBe("succeeded");

    const key = await api<{ key: string }>(suite.studio, "POST", "/api/api-keys", {
      token,
      body: { name: "import e2e" },
    });
    expect(key.status).toBe(201);
    const outcomes: RunView[] = [];
    for (const [imported, input] of [
      [fromGit, { changeme: "x", __context__: { my_configurable_param: "git" } }],
      [fromZip, { messages: [{ role: "user", content: "hi" }] }],
    ] as const) {
      const workflow = await api<{ id: string }>(suite.studio, "POST", `/api/imports/${imported.id}/workflows`, {
        token,
        body: { graph_id: "agent" },
      });
      expect(workflow.status).toBe(201);
      const hook = await api<{ run_id: string }>(
        suite.studio,
        "POST",
        `/api/hooks/workflows/${workflow.body.data?.id}/runs`,
        { token: key.body.data?.key as string, body: { input } },
      );
      expect(hook.status, JSON.stringify(hook.body)).toBe(202);
      let view = { id: hook.body.data?.run_id as string } as RunView;
      await expect
        .poll(
          async () => {
            view = (await api<RunView>(suite.studio, "GET", `/api/runs/${view.id}`, { token })).body.data as RunView;
            return view.status;
          },
          { timeout: 300_000, interval: 500 },
        )
        .toMatch(/^(ok|error)$/);
      outcomes.push(view);
    }
    const [ok, failed] = outcomes as [RunView, RunView];
    expect(ok.status, JSON.stringify(ok.error)).toBe("ok");
    expect(JSON.stringify(ok.output)).toContain("Configured with git");
    expect(failed.status).toBe("error");
    expect(JSON.stringify(failed.error)).toContain("OPENAI_API_KEY");
    expect(JSON.stringify(failed.error)).toContain("TAVILY_API_KEY");
  }, 900_000);
});
