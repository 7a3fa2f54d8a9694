// The Import repo page in a browser, against the real studio with STUDIO_ENABLE_IMPORT=1: a zip
// of a small LangGraph project picked with the file picker (English and Vietnamese) shows its steps
// going from running to done, the graph found (not checked: this server skips the check step, so
// no "create workflow" is offered for it), the environment names and the log; hostile and broken zips (a zip-slip entry dropped on the drop
// zone, text named .zip, a zip over the size limit) are refused with their translated messages; a
// GitHub URL is checked in the browser with the server's message, and a clone that fails (a local
// mirror without the repository: no traffic leaves the machine) shows the job's error; a job that is
// not there shows IMPORT_NOT_FOUND. axe-core runs on each view; screenshots go to
// test-results/screenshots.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { makeZip, NEW_PROJECT_FILES, type ZipEntrySpec } from "../backend/test/zip-fixture.js";
import { api, type Lang, openContext, screenshot, seriousViolations, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

interface ImportJob {
  id: string;
  status: string;
  source: { kind: string; file_name?: string; url?: string };
  error: { code: string } | null;
}

// Small enough for every good zip here, small enough that a test can go past it quickly.
const MAX_BYTES = 64 * 1024;

const TEXT = {
  en: {
    title: "Import a LangGraph repository",
    done: "Done",
    failed: "Failed",
    stateDone: "done",
    stateStopped: "not run",
    graphs: "1 graph found",
    create: "Create workflow from this graph",
    import: "Import from GitHub",
    url: "GitHub URL",
    branch: "Branch (optional)",
    unsafe: "The zip has an entry that would be written outside its folder, or a symlink; nothing was kept.",
    notZip: "The file is not a zip archive that can be read.",
    tooLarge: "The source is larger than this server accepts.",
    urlInvalid: "Only public GitHub repositories over https can be imported: https://github.com/owner/repository.",
    branchInvalid: "This is not a branch name git accepts.",
    cloneFailed: "The repository could not be cloned: check that it is public and that the branch exists.",
  },
  vi: {
    title: "Nhập repo LangGraph",
    done: "Xong",
    failed: "Thất bại",
    stateDone: "xong",
    stateStopped: "không chạy",
    graphs: "Tìm thấy 1 graph",
    create: "Tạo quy trình từ graph này",
    import: "Nhập từ GitHub",
    url: "URL GitHub",
    branch: "Nhánh (tuỳ chọn)",
    unsafe: "File zip có mục sẽ ghi ra ngoài thư mục của nó, hoặc có symlink; không giữ lại gì cả.",
    notZip: "File này không phải file zip đọc được.",
    tooLarge: "Mã nguồn lớn hơn mức máy chủ này chấp nhận.",
    urlInvalid: "Chỉ nhập được repo GitHub công khai qua https: https://github.com/chủ-sở-hữu/repo.",
    branchInvalid: "Tên nhánh này không hợp lệ với git.",
    cloneFailed: "Không clone được repo: hãy kiểm tra repo có công khai và nhánh có tồn tại không.",
  },
} as const;

/** The project's files under one top folder, as GitHub's "Download ZIP" lays them out. */
function projectZip(files: Record<string, string>, extra: ZipEntrySpec[] = []): Buffer {
  const top = "agent-main/";
  return makeZip([
    { name: top },
    ...Object.entries(files).map(([name, data]) => ({ name: `${top}${name}`, data, deflate: true })),
    ...extra,
  ]);
}

/** Bytes that do not compress, so a zip holding them is about as large as they are. */
function noise(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let x = 2463534242;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

// A mirror directory with no repositories: a GitHub URL is "cloned" from here, and fails, offline.
const mirror = mkdtempSync(join(tmpdir(), "superstep-e2e-mirror-"));
afterAll(() => rmSync(mirror, { recursive: true, force: true }));

describe("the Import repo page in a browser", () => {
  const suite = studioSuite({
    env: {
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_IMPORT_MAX_BYTES: String(MAX_BYTES),
      STUDIO_TEST_IMPORT_GIT_MIRROR: mirror,
      // The sandbox on the real engine: the registry-free image, offline installs, no network.
      STUDIO_IMPORT_RUNTIME: "docker",
      STUDIO_IMPORT_IMAGE: "superstep-python:local",
      STUDIO_IMPORT_WHEELS: fileURLToPath(new URL("../.wheels-import", import.meta.url)),
      STUDIO_IMPORT_NETWORK: "none",
    },
  });

  async function jobs(): Promise<ImportJob[]> {
    const response = await api<ImportJob[]>(suite.studio, "GET", "/api/imports", { token: suite.token });
    expect(response.status).toBe(200);
    return response.body.data ?? [];
  }

  /** The Import repo page reached the way a person reaches it: the Workflows page's entry. */
  async function openImport(lang: Lang) {
    const opened = await openContext(suite.browser, { lang });
    await storeSession(opened.page, suite.studio, suite.token);
    await opened.page.goto(`${suite.studio.url}/workflows`);
    await opened.page.getByTestId("import-repo-entry").click();
    await opened.page.waitForURL(`${suite.studio.url}/import-repo`);
    await opened.page.getByRole("heading", { level: 1, name: TEXT[lang].title }).waitFor();
    return opened;
  }

  async function pickZip(page: Page, name: string, buffer: Buffer, mimeType = "application/zip") {
    await page.getByTestId("import-zip-input").setInputFiles({ name, mimeType, buffer });
  }

  /** Drops a file on the drop zone as the browser does: a drop event carrying it in its DataTransfer. */
  async function dropZip(page: Page, name: string, buffer: Buffer) {
    const transfer = await page.evaluateHandle(
      ({ name, bytes }) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(bytes)], name, { type: "application/zip" }));
        return data;
      },
      { name, bytes: [...buffer] },
    );
    const zone = page.getByTestId("import-drop-zone");
    await zone.dispatchEvent("dragover", { dataTransfer: transfer });
    await zone.dispatchEvent("drop", { dataTransfer: transfer });
  }

  /** The job the address names, once the page has gone to it. */
  async function shownJobId(page: Page): Promise<string> {
    await page.waitForURL((url) => url.searchParams.has("job"));
    return new URL(page.url()).searchParams.get("job") as string;
  }

  for (const lang of ["en", "vi"] as const) {
    it(`imports a zip and shows its steps, the graph found, the environment names and the log (${lang})`, async () => {
      const { context, page, errors } = await openImport(lang);
      expect(await seriousViolations(page)).toEqual([]);
      const polls: string[] = [];
      page.on("request", (request) => {
        if (/\/api\/imports\/[^/?]+$/.test(new URL(request.url()).pathname)) polls.push(request.url());
      });
      const fileName = `agent-main-${lang}.zip`;
      await pickZip(page, fileName, projectZip(NEW_PROJECT_FILES));
      const id = await shownJobId(page);

      // The job is answered "running" at once; the page follows it until it is done.
      const job = page.getByTestId("import-job");
      await expect.poll(() => job.getByTestId("import-status").textContent()).toBe(TEXT[lang].done);
      expect(polls.length).toBeGreaterThan(0);
      expect(await job.getByTestId("import-source").textContent()).toBe(fileName);
      const states = await Promise.all(
        ["download", "install", "check", "ready"].map(async (name) => {
          const step = job.getByTestId(`import-step-${name}`);
          return [await step.getAttribute("data-state"), await step.getByTestId("import-step-state").textContent()];
        }),
      );
      expect(states).toEqual([
        ["done", TEXT[lang].stateDone],
        ["done", TEXT[lang].stateDone],
        ["done", TEXT[lang].stateDone],
        ["done", TEXT[lang].stateDone],
      ]);

      // The graph picker lists the graph of langgraph.json with its spec and file:variable.
      await job.getByRole("heading", { name: TEXT[lang].graphs }).waitFor();
      const graph = job.getByTestId("import-graph");
      expect(await job.getByTestId("import-graph-id").allTextContents()).toEqual(["agent"]);
      expect(await graph.getByRole("heading", { name: "agent" }).count()).toBe(1);
      expect(await job.getByTestId("import-graph-spec").allTextContents()).toEqual(["./src/agent/graph.py:graph"]);
      expect(await job.getByTestId("import-graph-location").allTextContents()).toEqual(["src/agent/graph.py:graph"]);
      expect(await job.getByTestId("import-env-names").locator("code").allTextContents()).toEqual([
        "LANGSMITH_API_KEY",
        "OPENAI_API_KEY",
      ]);

      // The check step loaded the graph in the sandbox: its counts, and a workflow can be made from it.
      expect(await graph.getAttribute("data-inspection")).toBe("loaded");
      expect(await graph.getByTestId("import-graph-counts").textContent()).toContain("3");
      expect(await job.getByRole("button", { name: TEXT[lang].create }).isEnabled()).toBe(true);

      // Each step that logged shows its newest line as it comes.
      const stored = await api<{ logs: { step: string; line: string }[] }>(suite.studio, "GET", `/api/imports/${id}`, {
        token: suite.token,
      });
      const downloadLines = (stored.body.data?.logs ?? []).filter((log) => log.step === "download");
      expect(await job.getByTestId("import-step-download").getByTestId("import-step-last-line").textContent()).toBe(
        downloadLines.at(-1)?.line,
      );

      // The log: the server's own lines, each under its step.
      const log = await job.getByTestId("import-log").textContent();
      expect(log).toContain("found 1 graph(s): agent (./src/agent/graph.py:graph)");
      expect(log).toContain("graph agent: loaded (3 nodes, 2 edges, 0 conditional)");
      expect(log).not.toContain("not built in this version");

      // The list of earlier imports has it, marked as the one shown.
      const current = page.locator('[data-testid="import-job-link"][aria-current="page"]');
      await expect.poll(() => current.textContent()).toContain(fileName);
      expect(await current.getByTestId("import-status").textContent()).toBe(TEXT[lang].done);
      expect((await jobs()).find((stored) => stored.id === id)).toMatchObject({
        status: "succeeded",
        source: { kind: "zip", file_name: fileName },
      });

      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `import-repo-job-${lang}`);
      await graph.scrollIntoViewIfNeeded();
      await screenshot(page, `import-repo-job-graphs-${lang}`);
      if (lang === "en") {
        // Polling stops once the job has ended: three polling periods pass without a request for it.
        const before = polls.length;
        await page.waitForTimeout(3000);
        expect(polls.length).toBe(before);
      }
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`refuses a zip-slip entry, a file that is not a zip and a zip over the limit, with translated messages (${lang})`, async () => {
      const { context, page, errors } = await openImport(lang);
      const before = (await jobs()).length;

      // A zip whose entry climbs out, dropped on the drop zone: the job fails and says so.
      await dropZip(page, "slip.zip", projectZip(NEW_PROJECT_FILES, [{ name: "../evil.py", data: "x" }]));
      const slipId = await shownJobId(page);
      const job = page.getByTestId("import-job");
      await expect.poll(() => job.getByTestId("import-status").textContent()).toBe(TEXT[lang].failed);
      expect(await job.getByTestId("import-error-message").textContent()).toBe(TEXT[lang].unsafe);
      expect(await job.getByTestId("import-error").textContent()).toContain("entry: ../evil.py");
      expect(await job.getByTestId("import-step-download").getAttribute("data-state")).toBe("failed");
      expect(await job.getByTestId("import-step-install").getByTestId("import-step-state").textContent()).toBe(
        TEXT[lang].stateStopped,
      );
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `import-repo-unsafe-zip-${lang}`);

      // Text named .zip: the server reads it, and the job fails with IMPORT_ZIP_INVALID.
      await pickZip(page, "notes.zip", Buffer.from("just text, not a zip"));
      await page.waitForURL((url) => url.searchParams.get("job") !== slipId);
      await expect
        .poll(() => page.getByTestId("import-job").getByTestId("import-error-message").textContent())
        .toBe(TEXT[lang].notZip);

      // A file that is plainly no zip is refused before any upload, with the same message.
      await pickZip(page, "notes.txt", Buffer.from("text"), "text/plain");
      expect(await page.getByTestId("import-zip-error").textContent()).toBe(TEXT[lang].notZip);

      // Over STUDIO_IMPORT_MAX_BYTES: refused on the request (413), no job made.
      await pickZip(
        page,
        "big.zip",
        projectZip(NEW_PROJECT_FILES, [{ name: "agent-main/noise.bin", data: noise(MAX_BYTES * 2) }]),
      );
      expect(await page.getByTestId("import-start-error").textContent()).toBe(TEXT[lang].tooLarge);

      const after = await jobs();
      expect(after.length).toBe(before + 2);
      expect(after.slice(0, 2).map((stored) => stored.error?.code)).toEqual([
        "IMPORT_ZIP_INVALID",
        "IMPORT_ZIP_UNSAFE_ENTRY",
      ]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("checks a GitHub URL and branch in the browser with the server's messages, and shows a failed clone (vi, en)", async () => {
    const { context, page, errors } = await openImport("vi");
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/imports") posts.push(request.url());
    });
    await page.getByLabel(TEXT.vi.url).fill("http://github.com/langchain-ai/react-agent");
    await page.getByLabel(TEXT.vi.branch).fill("--upload-pack=touch");
    await page.getByRole("button", { name: TEXT.vi.import }).click();
    expect(await page.getByTestId("import-url-error").textContent()).toBe(TEXT.vi.urlInvalid);
    expect(await page.getByTestId("import-branch-error").textContent()).toBe(TEXT.vi.branchInvalid);
    expect(await page.getByLabel(TEXT.vi.url).getAttribute("aria-invalid")).toBe("true");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "import-repo-url-check-vi");
    expect(posts).toEqual([]);
    // The server refuses the same URL with the same code the browser showed.
    const refused = await api(suite.studio, "POST", "/api/imports", {
      token: suite.token,
      body: { url: "http://github.com/langchain-ai/react-agent" },
    });
    expect([refused.status, refused.body.error?.code]).toEqual([422, "IMPORT_URL_INVALID"]);
    await context.close();

    // A well-formed URL goes to the server; the repository is not in the mirror, so the clone fails.
    const en = await openImport("en");
    await en.page.getByLabel(TEXT.en.url).fill("https://github.com/langchain-ai/not-mirrored");
    await en.page.getByRole("button", { name: TEXT.en.import }).click();
    await shownJobId(en.page);
    const job = en.page.getByTestId("import-job");
    await expect.poll(() => job.getByTestId("import-status").textContent()).toBe(TEXT.en.failed);
    expect(await job.getByTestId("import-source").textContent()).toBe("langchain-ai/not-mirrored");
    expect(await job.getByTestId("import-error-message").textContent()).toBe(TEXT.en.cloneFailed);
    expect(await seriousViolations(en.page)).toEqual([]);
    await screenshot(en.page, "import-repo-clone-failed-en");

    // A job that is not there (an old link): the server's IMPORT_NOT_FOUND, translated.
    await en.page.goto(`${suite.studio.url}/import-repo?job=no-such-job`);
    await en.page.getByRole("alert").filter({ hasText: "No such import." }).waitFor();
    expect(errors).toEqual([]);
    expect(en.errors).toEqual([]);
    await en.context.close();
  });
});
