// The editor's JSON view, problems checklist and versions panel in a browser, against the real
// studio: a JSON edit round-trips through the document store (and undoes), an invalid one keeps
// the last valid workflow and says where it is wrong; the validator's problems are listed and lead
// to their node; two versions compare as expected; a restore makes a new version; axe-core finds
// no serious violation with any of these panels open. Both languages where text matters.
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api, createWorkflow, type Lang, openContext, screenshot, seriousViolations, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

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
    pick: (v: number) => `Select version ${v} to compare`,
    compare: "Compare",
    codeChanged: "code changed",
    labelChanged: "label changed",
    back: "Back to editing",
    restoreVersion: (v: number) => `Restore version ${v}`,
    restore: "Restore",
    restored: "Version 1 restored as version 4.",
  },
  vi: {
    syntax: /JSON không hợp lệ ở dòng 3, cột 3/,
    unknownType: /Dòng \d+, cột \d+: không có loại nút nào tên là “webhook”/,
    notWorkflow: "JSON này không phải quy trình Superstep",
    ready: "Sẵn sàng chạy",
    cannotRun: /^Chưa chạy được: còn \d+ lỗi$/,
    unreachable: "Không có đường nào từ Bắt đầu đi tới nút này.",
    pick: (v: number) => `Chọn phiên bản ${v} để so sánh`,
    compare: "So sánh",
    codeChanged: "sửa code",
    labelChanged: "sửa label",
    back: "Quay lại chỉnh sửa",
    restoreVersion: (v: number) => `Khôi phục phiên bản ${v}`,
    restore: "Khôi phục",
    restored: "Đã khôi phục phiên bản 1 thành phiên bản 4.",
  },
} as const;

describe("the editor's JSON view, problems and versions in a browser", () => {
  const suite = studioSuite();

  async function createByApi(document: Doc): Promise<WorkflowView> {
    return createWorkflow<WorkflowView>(suite.studio, suite.token, document);
  }

  async function openEditor(workflowId: string, lang: Lang = "en", theme: "light" | "dark" = "light") {
    const opened = await openContext(suite.browser, { lang, theme });
    await opened.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.studio.url });
    await storeSession(opened.page, suite.studio, suite.token);
    await opened.page.goto(`${suite.studio.url}/workflows/${workflowId}`);
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
      const stored = await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${workflow.id}`, {
        token: suite.token,
      });
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

  /** Version 1: the example; 2: Draft's code and label changed, a Log node added; 3: Approve removed. */
  async function threeVersions(name: string): Promise<{ workflow: WorkflowView; docs: Doc[] }> {
    const v1: Doc = { ...structuredClone(TRIAGE), name };
    const workflow = await createByApi(v1);
    const v2: Doc = structuredClone(workflow.document);
    const draft = v2.nodes.find((n) => n.id === "draft") as Doc["nodes"][number];
    draft.data = { ...draft.data, label: "Draft a reply", code: "def main(state):\n    return {'reply': 'Thanks!'}" };
    v2.nodes.push({
      id: "log",
      type: "code",
      position: { x: 1000, y: 100 },
      data: { language: "javascript", code: "function main(s) { return {}; }" },
    });
    v2.edges.push({ id: "e_log", source: "draft", target: "log" });
    const v3: Doc = structuredClone(v2);
    v3.nodes = v3.nodes.filter((n) => n.id !== "approve");
    v3.edges = v3.edges.filter((e) => e.source !== "approve" && e.target !== "approve");
    for (const document of [v2, v3]) {
      const saved = await api<WorkflowView>(suite.studio, "PUT", `/api/workflows/${workflow.id}`, {
        token: suite.token,
        body: document,
      });
      expect(saved.status).toBe(200);
    }
    return { workflow, docs: [workflow.document, v2, v3] };
  }

  for (const lang of ["en", "vi"] as const) {
    it(`Versions: comparing two versions lists the added, removed and changed nodes and settings (${lang})`, async () => {
      const { workflow } = await threeVersions(`Compare ${lang}`);
      const { context, page, errors } = await openEditor(workflow.id, lang, lang === "en" ? "light" : "dark");
      await page.getByTestId("panel-tab-versions").click();
      await page.getByTestId("version-row").first().waitFor();
      expect(
        await page.getByTestId("version-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-version"))),
      ).toEqual(["3", "2", "1"]);
      if (lang === "en") expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("checkbox", { name: TEXT[lang].pick(3) }).check();
      await page.getByRole("checkbox", { name: TEXT[lang].pick(1) }).check();
      await page.getByRole("button", { name: TEXT[lang].compare, exact: true }).click();
      await page.getByTestId("version-comparison").waitFor();
      const marks = await page
        .getByTestId("compare-node")
        .evaluateAll((items) => items.map((i) => [i.getAttribute("data-node-id"), i.getAttribute("data-mark")]));
      expect(marks.sort()).toEqual([
        ["approve", "removed"],
        ["draft", "changed"],
        ["log", "added"],
      ]);
      const draftSettings = await page
        .locator('[data-testid="compare-node"][data-node-id="draft"] [data-testid="compare-setting"]')
        .allTextContents();
      expect(draftSettings.sort()).toEqual([TEXT[lang].codeChanged, TEXT[lang].labelChanged].sort());
      const edgeMarks = await page
        .getByTestId("compare-edge")
        .evaluateAll((items) => items.map((i) => [i.getAttribute("data-edge-id"), i.getAttribute("data-mark")]));
      expect(edgeMarks.sort()).toEqual([
        ["e3", "removed"],
        ["e5", "removed"],
        ["e_log", "added"],
      ]);
      await page.getByTestId("version-comparison").locator("summary").click();
      const diff = page.getByTestId("json-diff");
      expect(await diff.locator('[data-kind="added"]').allTextContents()).toContain('+       "id": "log",');
      expect(await page.getByTestId("version-banner").isVisible()).toBe(true);
      await screenshot(page, `versions-compare-${lang}`);
      if (lang === "en") expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: TEXT[lang].back }).click();
      await page.getByTestId("version-row").first().waitFor();
      expect(await page.getByTestId("version-banner").count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("Versions: restoring an old version saves it as a new one and the editor shows it", async () => {
    const { workflow, docs } = await threeVersions("Restore me");
    const { context, page, errors } = await openEditor(workflow.id, "vi", "dark");
    await page.getByTestId("panel-tab-versions").click();
    await page.getByTestId("version-row").first().waitFor();
    await screenshot(page, "versions-list-vi");
    // Preview version 1 (read only), then restore it from the preview's banner.
    await page.getByRole("button", { name: "Xem trước phiên bản 1" }).click();
    const banner = page.getByTestId("version-banner");
    await expect.poll(() => banner.textContent()).toContain("Bạn đang xem phiên bản 1 (chỉ đọc)");
    expect(await page.getByTestId("workflow-title").textContent()).toBe("Restore me");
    await banner.getByRole("button", { name: "Khôi phục phiên bản này" }).click();
    const dialog = page.getByRole("alertdialog");
    await dialog.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: TEXT.vi.restore, exact: true }).click();
    await page.getByText(TEXT.vi.restored).waitFor();
    const stored = await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${workflow.id}`, {
      token: suite.token,
    });
    expect(stored.body.data?.version).toBe(4);
    expect(stored.body.data?.document).toEqual(docs[0]);
    const versions = await api<{ number: number; restored_from: number | null }[]>(
      suite.studio,
      "GET",
      `/api/workflows/${workflow.id}/versions`,
      { token: suite.token },
    );
    expect(versions.body.data?.map((v) => [v.number, v.restored_from])).toEqual([
      [4, 1],
      [3, null],
      [2, null],
      [1, null],
    ]);
    // The list and the editor follow: a fourth version, and the JSON view shows the restored document.
    await expect.poll(() => page.getByTestId("version-row").count()).toBe(4);
    await openJsonView(page);
    expect(JSON.parse(await jsonViewText(page))).toEqual(docs[0]);
    expect(errors).toEqual([]);
    await context.close();
  });

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
