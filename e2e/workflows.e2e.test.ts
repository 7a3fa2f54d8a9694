// The workflows page in a browser, against the real studio: create (empty and from an example),
// search and sort, rename, duplicate, delete with confirmation, export and import (with the bad
// files people really pick), the "Import repo" entry, and axe-core on the page and its dialogs.
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  api,
  createWorkflow,
  type Lang,
  openContext,
  screenshot,
  seriousViolations,
  startE2EStudio,
  storeSession,
} from "./studio.js";
import { studioSuite } from "./studio-suite.js";

interface Doc {
  name: string;
  description?: string;
  state: unknown[];
  nodes: unknown[];
  edges: unknown[];
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
    newWorkflow: "New workflow",
    create: "Create",
    triage: "Support triage (rules)",
    actions: (name: string) => `Actions for ${name}`,
    delete: "Delete…",
    deleteTitle: "Delete this workflow?",
    confirm: "Delete",
    cancel: "Cancel",
    notJson: "This file is not JSON. Choose a workflow file exported from Superstep (.json).",
    notWorkflow: "This file is JSON but not a Superstep workflow.",
    tooLarge: "This is larger than the server accepts.",
  },
  vi: {
    newWorkflow: "Tạo quy trình",
    create: "Tạo",
    triage: "Phân loại yêu cầu hỗ trợ (theo quy tắc)",
    actions: (name: string) => `Thao tác cho ${name}`,
    delete: "Xoá…",
    deleteTitle: "Xoá quy trình này?",
    confirm: "Xoá",
    cancel: "Huỷ",
    notJson: "Tệp này không phải JSON. Hãy chọn một tệp quy trình xuất từ Superstep (.json).",
    notWorkflow: "Tệp này là JSON nhưng không phải quy trình Superstep.",
    tooLarge: "Dữ liệu lớn hơn mức máy chủ chấp nhận.",
  },
} as const;

describe("the workflows page in a browser", () => {
  const suite = studioSuite();

  async function listed(): Promise<WorkflowView[]> {
    const response = await api<WorkflowView[]>(suite.studio, "GET", "/api/workflows?limit=200", { token: suite.token });
    return response.body.data ?? [];
  }

  async function byName(name: string): Promise<WorkflowView | undefined> {
    const summary = (await listed()).find((workflow) => workflow.name === name);
    if (!summary) return undefined;
    return (await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${summary.id}`, { token: suite.token })).body
      .data;
  }

  async function createByApi(document: Doc): Promise<WorkflowView> {
    return createWorkflow<WorkflowView>(suite.studio, suite.token, document);
  }

  async function openList(lang: Lang = "en", theme: "light" | "dark" = "light") {
    const opened = await openContext(suite.browser, { lang, theme });
    await storeSession(opened.page, suite.studio, suite.token);
    await opened.page.goto(`${suite.studio.url}/workflows`);
    await opened.page.getByRole("heading", { level: 1, name: lang === "en" ? "Workflows" : "Quy trình" }).waitFor();
    return opened;
  }

  /** The JSON view's whole text, copied out of the editor as a person would (select all, copy). */
  async function jsonViewText(page: Page): Promise<string> {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.studio.url });
    await page.getByTestId("panel-tab-json").click();
    await page.getByTestId("workflow-json").locator(".cm-content").click();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+c");
    return page.evaluate(() => navigator.clipboard.readText());
  }

  async function rowNames(page: Page): Promise<string[]> {
    return page.getByTestId("workflow-name").allTextContents();
  }

  for (const lang of ["en", "vi"] as const) {
    it(`creates a workflow from an example, opens it and lists it (${lang})`, async () => {
      const { context, page, errors } = await openList(lang, lang === "en" ? "light" : "dark");
      await page.getByRole("button", { name: TEXT[lang].newWorkflow }).first().click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("radio", { name: new RegExp(TEXT[lang].triage.replace(/[()]/g, "\\$&")) }).click();
      const name = dialog.getByRole("textbox", { name: lang === "en" ? "Name" : "Tên" });
      expect(await name.inputValue()).toBe(TEXT[lang].triage);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `create-dialog-${lang}`);
      await dialog.getByRole("button", { name: TEXT[lang].create, exact: true }).click();

      await page.waitForURL((url) => /^\/workflows\/[^/]+$/.test(url.pathname));
      expect(await page.getByTestId("workflow-title").textContent()).toBe(TEXT[lang].triage);
      const shown = JSON.parse(await jsonViewText(page)) as Doc;
      expect(shown).toEqual({ ...TRIAGE, name: TEXT[lang].triage });
      const stored = await byName(TEXT[lang].triage);
      expect(stored?.document).toEqual(shown);

      await page.getByRole("link", { name: lang === "en" ? "Back to workflows" : "Về danh sách quy trình" }).click();
      await page.getByTestId("workflow-row").first().waitFor();
      expect(await rowNames(page)).toContain(TEXT[lang].triage);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("creates an empty workflow whose name has emoji and Vietnamese letters", async () => {
    const { context, page } = await openList();
    await page.getByRole("button", { name: "New workflow" }).first().click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("textbox", { name: "Name" }).fill("Quy trình 🚀 đặt hàng");
    await dialog.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL((url) => /^\/workflows\/[^/]+$/.test(url.pathname));
    expect(await page.getByTestId("workflow-title").textContent()).toBe("Quy trình 🚀 đặt hàng");
    expect((await byName("Quy trình 🚀 đặt hàng"))?.document).toEqual({
      name: "Quy trình 🚀 đặt hàng",
      state: [],
      nodes: [],
      edges: [],
    });
    await context.close();
  });

  it("searches without diacritics and sorts by name and by last saved, kept in the address", async () => {
    for (const name of ["Sắp xếp 9", "sắp xếp 10", "Sắp xếp Ánh"]) {
      await createByApi({ name, state: [], nodes: [], edges: [] });
    }
    const { context, page } = await openList();
    const search = page.getByRole("searchbox", { name: "Search workflows by name or description" });
    await search.fill("sap xep");
    await expect.poll(() => rowNames(page)).toEqual(["Sắp xếp Ánh", "sắp xếp 10", "Sắp xếp 9"]);

    await page.getByRole("combobox", { name: "Sort workflows" }).click();
    await page.getByRole("option", { name: "Name, A to Z" }).click();
    await expect.poll(() => rowNames(page)).toEqual(["Sắp xếp 9", "sắp xếp 10", "Sắp xếp Ánh"]);
    await page.getByRole("combobox", { name: "Sort workflows" }).click();
    await page.getByRole("option", { name: "Last saved, oldest first" }).click();
    await expect.poll(() => rowNames(page)).toEqual(["Sắp xếp 9", "sắp xếp 10", "Sắp xếp Ánh"]);
    await page.getByRole("combobox", { name: "Sort workflows" }).click();
    await page.getByRole("option", { name: "Name, Z to A" }).click();
    await expect.poll(() => rowNames(page)).toEqual(["Sắp xếp Ánh", "sắp xếp 10", "Sắp xếp 9"]);

    const url = new URL(page.url());
    expect(url.searchParams.get("q")).toBe("sap xep");
    expect(url.searchParams.get("sort")).toBe("name-desc");
    await page.reload();
    await expect.poll(() => rowNames(page)).toEqual(["Sắp xếp Ánh", "sắp xếp 10", "Sắp xếp 9"]);

    await search.fill("no such workflow anywhere");
    await page.getByText("No workflow matches “no such workflow anywhere”.").waitFor();
    await context.close();
  });

  it("renames, refusing a 10,000-character name with a clear message and keeping emoji and diacritics", async () => {
    const original = await createByApi({ name: "Tên cũ", state: [], nodes: [], edges: [] });
    const { context, page } = await openList();
    await page.getByRole("button", { name: "Actions for Tên cũ" }).click();
    await page.getByRole("menuitem", { name: "Rename…" }).click();
    const dialog = page.getByRole("dialog", { name: "Rename workflow" });
    const name = dialog.getByRole("textbox", { name: "Name" });
    expect(await name.inputValue()).toBe("Tên cũ");
    await name.fill("x".repeat(10_000));
    expect(await dialog.getByTestId("field-error").textContent()).toBe("The name is too long: at most 200 characters.");
    await dialog.getByRole("button", { name: "Rename", exact: true }).click();
    expect(await dialog.isVisible()).toBe(true);
    expect(
      (await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${original.id}`, { token: suite.token })).body.data
        ?.version,
    ).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "rename-too-long-en");

    await name.fill("Tên mới ✨ Tiếng Việt");
    await dialog.getByRole("button", { name: "Rename", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => rowNames(page)).toContain("Tên mới ✨ Tiếng Việt");
    const renamed = (
      await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${original.id}`, { token: suite.token })
    ).body.data;
    expect(renamed?.name).toBe("Tên mới ✨ Tiếng Việt");
    expect(renamed?.version).toBe(2);
    await context.close();
  });

  it("duplicates a workflow under a new name with the same document", async () => {
    const source = await createByApi({ ...TRIAGE, name: "Nguồn nhân bản" });
    const { context, page } = await openList();
    await page.getByRole("button", { name: "Actions for Nguồn nhân bản" }).click();
    await page.getByRole("menuitem", { name: "Duplicate…" }).click();
    const dialog = page.getByRole("dialog", { name: "Duplicate workflow" });
    expect(await dialog.getByRole("textbox", { name: "Name" }).inputValue()).toBe("Copy of Nguồn nhân bản");
    await dialog.getByRole("button", { name: "Duplicate", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => rowNames(page)).toContain("Copy of Nguồn nhân bản");
    const copy = await byName("Copy of Nguồn nhân bản");
    expect(copy?.id).not.toBe(source.id);
    expect(copy?.document).toEqual({ ...source.document, name: "Copy of Nguồn nhân bản" });
    await context.close();
  });

  for (const lang of ["en", "vi"] as const) {
    it(`deletes a workflow only once the dialog is confirmed (${lang})`, async () => {
      const doomed = await createByApi({ name: `Sẽ xoá ${lang}`, state: [], nodes: [], edges: [] });
      const { context, page } = await openList(lang, "dark");
      await page.getByRole("button", { name: TEXT[lang].actions(doomed.name) }).click();
      await page.getByRole("menuitem", { name: TEXT[lang].delete }).click();
      const dialog = page.getByRole("alertdialog", { name: TEXT[lang].deleteTitle });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain(doomed.name);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `delete-dialog-${lang}`);
      await dialog.getByRole("button", { name: TEXT[lang].cancel }).click();
      await dialog.waitFor({ state: "hidden" });
      expect((await api(suite.studio, "GET", `/api/workflows/${doomed.id}`, { token: suite.token })).status).toBe(200);

      await page.getByRole("button", { name: TEXT[lang].actions(doomed.name) }).click();
      await page.getByRole("menuitem", { name: TEXT[lang].delete }).click();
      await dialog.getByRole("button", { name: TEXT[lang].confirm, exact: true }).click();
      await dialog.waitFor({ state: "hidden" });
      await expect.poll(() => rowNames(page)).not.toContain(doomed.name);
      expect((await api(suite.studio, "GET", `/api/workflows/${doomed.id}`, { token: suite.token })).status).toBe(404);
      await context.close();
    });
  }

  it("exports a workflow as a JSON file equal to its document, and imports it back", async () => {
    const source = await createByApi({ ...TRIAGE, name: "Xuất: đơn/hàng 📦" });
    const { context, page } = await openList();
    await page.getByRole("button", { name: "Actions for Xuất: đơn/hàng 📦" }).click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("menuitem", { name: "Export as JSON" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("Xuất- đơn-hàng 📦.json");
    const text = readFileSync(await download.path(), "utf8");
    expect(JSON.parse(text)).toEqual(source.document);

    // The exported file, renamed, comes back as a new workflow.
    const edited = { ...JSON.parse(text), name: "Nhập lại 📦" };
    await page.getByTestId("import-file").setInputFiles({
      name: "nhap-lai.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(edited)),
    });
    await expect.poll(() => rowNames(page)).toContain("Nhập lại 📦");
    expect((await byName("Nhập lại 📦"))?.document).toEqual(edited);
    await context.close();
  });

  for (const lang of ["en", "vi"] as const) {
    it(`a file that is not JSON, not a workflow, or too large is refused with a translated message (${lang})`, async () => {
      const { context, page, errors } = await openList(lang);
      const before = (await listed()).length;
      const importFile = async (name: string, content: string | Buffer) => {
        await page.getByTestId("import-file").setInputFiles({
          name,
          mimeType: "application/octet-stream",
          buffer: Buffer.isBuffer(content) ? content : Buffer.from(content),
        });
        // The panel about this file (not the one before it).
        const alert = page.getByTestId("import-error").filter({ hasText: `“${name}”` });
        await alert.waitFor();
        return {
          message: await alert.getByTestId("import-error-message").textContent(),
          issues: await alert.getByRole("listitem").allTextContents(),
        };
      };

      expect((await importFile("notes.txt", "this is not JSON {")).message).toBe(TEXT[lang].notJson);
      expect((await importFile("picture.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]))).message).toBe(
        TEXT[lang].notJson,
      );
      expect((await importFile("list.json", "[1, 2, 3]")).message).toBe(TEXT[lang].notWorkflow);

      const other = await importFile("package.json", JSON.stringify({ nodes: "many", version: "1.0.0" }));
      expect(other.message).toBe(TEXT[lang].notWorkflow);
      expect(other.issues).toContain(
        lang === "en" ? "name: has the wrong type or is missing" : "name: sai kiểu dữ liệu hoặc bị thiếu",
      );
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `import-not-workflow-${lang}`);

      const longName = await importFile("long-name.json", JSON.stringify({ name: "y".repeat(10_000), nodes: [] }));
      expect(longName.message).toBe(TEXT[lang].notWorkflow);
      expect(longName.issues).toContain(
        lang === "en" ? "name: is too large or too long" : "name: quá lớn hoặc quá dài",
      );

      // 5 MB of valid JSON: over the server's body limit (2 MB by default), which says so.
      const big = {
        name: "Lớn",
        state: [],
        nodes: [],
        edges: [],
        description: "",
        padding: "z".repeat(5 * 1024 * 1024),
      };
      expect((await importFile("big.json", JSON.stringify(big))).message).toBe(TEXT[lang].tooLarge);

      await page.getByTestId("import-error").getByRole("button").click();
      await page.getByTestId("import-error").waitFor({ state: "hidden" });
      expect((await listed()).length).toBe(before);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("shows no Import repo entry while the server has repository import turned off", async () => {
    const health = await api<{ import_enabled: boolean }>(suite.studio, "GET", "/api/health");
    expect(health.body.data?.import_enabled).toBe(false);
    const { context, page } = await openList();
    await page.getByTestId("workflow-row").first().waitFor();
    expect(await page.getByTestId("import-repo-entry").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Import repo" }).count()).toBe(0);
    await context.close();
  });

  it("shows the Import repo entry when the server enables import, leading to the Import repo page", async () => {
    const withImport = await startE2EStudio({ STUDIO_ENABLE_IMPORT: "1" });
    try {
      const setup = await api<{ token: string }>(withImport, "POST", "/api/auth/setup", {
        body: { email: "importer@example.com", password: "importer-password" },
      });
      expect(setup.status).toBe(201);
      const { context, page } = await openContext(suite.browser);
      await storeSession(page, withImport, setup.body.data?.token as string);
      await page.goto(`${withImport.url}/workflows`);
      await page.getByTestId("import-repo-entry").click();
      await page.waitForURL(`${withImport.url}/import-repo`);
      await page.getByRole("heading", { level: 1, name: "Import a LangGraph repository" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "import-repo-en");
      await context.close();
    } finally {
      await withImport.stop();
    }
  });
});
