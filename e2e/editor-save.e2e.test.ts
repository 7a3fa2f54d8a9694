// Saving in the editor, in a browser against the real studio: Save and Ctrl+S with the unsaved
// indicator, the list showing the new version; a closed tab's edits offered back from the local
// journal; a stale save from a second tab refused, with review, merge and overwrite, and exactly
// one stored version per accepted save; the server going away in the middle of a save; leaving
// with unsaved changes; bad names; axe-core on the editor and its dialogs, in both languages.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startStudioProcess } from "../backend/test/studio-process.js";
import {
  api,
  createWorkflow,
  type E2EStudio,
  JWT_SECRET,
  jsonViewText,
  type Lang,
  openContext,
  ownerToken,
  screenshot,
  seriousViolations,
  storeSession,
} from "./studio.js";
import { studioSuite } from "./studio-suite.js";

interface Doc {
  name: string;
  description?: string;
  state: unknown[];
  nodes: { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> }[];
  edges: { id: string; source: string; target: string; label?: string }[];
}
interface WorkflowView {
  id: string;
  name: string;
  version: number;
  document: Doc;
}

const TEXT = {
  en: {
    saved: "All changes saved",
    unsaved: "Unsaved changes",
    notSaved: "Not saved",
    save: "Save",
    rename: "Rename",
    name: "Name",
    apply: "Apply",
    version: (n: number) => `v${n}`,
    network: "The server cannot be reached.",
    tooLarge: "This is larger than the server accepts.",
    dismiss: "Dismiss",
    retry: "Try again",
    back: "Back to workflows",
    leaveTitle: "Leave without saving?",
    stay: "Stay",
    leave: "Leave",
    offerTitle: "Restore unsaved edits?",
    restore: "Restore edits",
    discard: "Discard them",
    conflictTitle: "Someone saved this workflow after you opened it",
    nameChanged: "The workflow's name",
    nodeAdded: "Node added: Added on the server (server_node)",
    review: "Review server version",
    merge: "Merge my edits",
    overwrite: "Overwrite with mine",
    backToMine: "Back to my edits",
    mergedTitle: "Your edits were merged into the server's version",
    checkResult: "Check the result",
    nameTooLong: "The workflow needs a name of 1 to 200 characters.",
  },
  vi: {
    saved: "Đã lưu mọi thay đổi",
    unsaved: "Có thay đổi chưa lưu",
    notSaved: "Chưa lưu được",
    save: "Lưu",
    rename: "Đổi tên",
    name: "Tên",
    apply: "Áp dụng",
    version: (n: number) => `v${n}`,
    network: "Không kết nối được tới máy chủ.",
    tooLarge: "Dữ liệu lớn hơn mức máy chủ chấp nhận.",
    dismiss: "Ẩn thông báo",
    retry: "Thử lại",
    back: "Về danh sách quy trình",
    leaveTitle: "Rời đi mà không lưu?",
    stay: "Ở lại",
    leave: "Rời đi",
    offerTitle: "Khôi phục các chỉnh sửa chưa lưu?",
    restore: "Khôi phục",
    discard: "Bỏ đi",
    conflictTitle: "Có người đã lưu quy trình này sau khi bạn mở",
    nameChanged: "Tên quy trình",
    // Vietnamese has one plural form: the count is always written.
    nodeAdded: "1 nút được thêm: Added on the server (server_node)",
    review: "Xem bản trên máy chủ",
    merge: "Gộp chỉnh sửa của tôi",
    overwrite: "Ghi đè bằng bản của tôi",
    backToMine: "Quay lại bản của tôi",
    mergedTitle: "Đã gộp chỉnh sửa của bạn vào bản trên máy chủ",
    checkResult: "Kiểm tra kết quả",
    nameTooLong: "Workflow cần có tên dài từ 1 đến 200 ký tự.",
  },
} as const;

const EMPTY: Doc = { name: "", state: [], nodes: [], edges: [] };

describe("saving in the editor", () => {
  const suite = studioSuite();

  async function create(name: string, target: E2EStudio = suite.studio, as = suite.token): Promise<WorkflowView> {
    return createWorkflow<WorkflowView>(target, as, { ...EMPTY, name });
  }

  async function current(id: string, target: E2EStudio = suite.studio, as = suite.token): Promise<WorkflowView> {
    return (await api<WorkflowView>(target, "GET", `/api/workflows/${id}`, { token: as })).body.data as WorkflowView;
  }

  async function versionNumbers(id: string, target: E2EStudio = suite.studio, as = suite.token): Promise<number[]> {
    const listed = await api<{ number: number }[]>(target, "GET", `/api/workflows/${id}/versions`, { token: as });
    return (listed.body.data ?? []).map((v) => v.number).sort((a, b) => a - b);
  }

  async function openEditor(page: Page, id: string, target: E2EStudio = suite.studio) {
    await page.goto(`${target.url}/workflows/${id}`);
    await page.getByTestId("save-status").waitFor();
  }

  async function openSignedIn(lang: Lang = "en", theme: "light" | "dark" = "light", target = suite.studio) {
    const opened = await openContext(suite.browser, { lang, theme });
    await storeSession(opened.page, target, suite.token);
    return opened;
  }

  const status = (page: Page) => page.getByTestId("save-status").textContent();
  const title = (page: Page) => page.getByTestId("workflow-title").textContent();

  async function rename(page: Page, lang: Lang, name: string) {
    await page.getByRole("button", { name: TEXT[lang].rename, exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("textbox", { name: TEXT[lang].name }).fill(name);
    await dialog.getByRole("button", { name: TEXT[lang].apply }).click();
    await dialog.waitFor({ state: "detached" });
  }

  /** The journal records this browser context holds for a workflow (read straight from IndexedDB). */
  function journalNames(page: Page, id: string): Promise<string[]> {
    return page.evaluate(
      (workflowId) =>
        new Promise<string[]>((resolve, reject) => {
          const opening = indexedDB.open("superstep-editor-journal");
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const db = opening.result;
            if (!db.objectStoreNames.contains("journal")) {
              db.close();
              return resolve([]);
            }
            const all = db.transaction("journal").objectStore("journal").getAll();
            all.onsuccess = () => {
              db.close();
              resolve(
                (all.result as { workflowId: string; content: { document: { name: string } } }[])
                  .filter((r) => r.workflowId === workflowId)
                  .map((r) => r.content.document.name),
              );
            };
          };
        }),
      id,
    );
  }

  for (const lang of ["en", "vi"] as const) {
    it(`saves with the button and with Ctrl+S, shows the new version and the list shows it (${lang})`, async () => {
      const workflow = await create(`Lưu ${lang}`);
      const theme = lang === "en" ? "light" : "dark";
      const { context, page, errors } = await openSignedIn(lang, theme);
      await openEditor(page, workflow.id);
      expect(await status(page)).toBe(TEXT[lang].saved);
      expect(await page.getByRole("button", { name: TEXT[lang].save, exact: true }).isDisabled()).toBe(true);

      await rename(page, lang, "Quy trình 🚀 đặt hàng");
      expect(await title(page)).toBe("Quy trình 🚀 đặt hàng");
      expect(await status(page)).toBe(TEXT[lang].unsaved);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `editor-save-unsaved-${lang}-${theme}`);
      await page.getByRole("button", { name: TEXT[lang].save, exact: true }).click();
      await expect.poll(() => status(page)).toBe(TEXT[lang].saved);
      await page.getByText(TEXT[lang].version(2), { exact: true }).waitFor();
      expect((await current(workflow.id)).name).toBe("Quy trình 🚀 đặt hàng");

      // Ctrl+S from inside a text field, then Cmd+S: each accepted save is one version.
      await rename(page, lang, "Tên thứ ba ✅");
      await page.getByRole("button", { name: TEXT[lang].rename, exact: true }).focus();
      await page.keyboard.press("Control+s");
      await expect.poll(() => status(page)).toBe(TEXT[lang].saved);
      await rename(page, lang, `Tên thứ tư ${lang}`);
      await page.keyboard.press("Meta+s");
      await expect.poll(() => status(page)).toBe(TEXT[lang].saved);
      await page.getByText(TEXT[lang].version(4), { exact: true }).waitFor();
      expect(await versionNumbers(workflow.id)).toEqual([1, 2, 3, 4]);
      await screenshot(page, `editor-save-saved-${lang}-${theme}`);

      await page.getByRole("link", { name: TEXT[lang].back }).click();
      const row = page.getByTestId("workflow-row").filter({ hasText: `Tên thứ tư ${lang}` });
      await row.waitFor();
      expect(await row.textContent()).toContain("v4");
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("saves once for many quick Ctrl+S presses while a save is on its way", async () => {
    const workflow = await create("Nhiều lần lưu");
    const { context, page } = await openSignedIn();
    await openEditor(page, workflow.id);
    await rename(page, "en", "Saved once");
    let puts = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`**/api/workflows/${workflow.id}`, async (route) => {
      if (route.request().method() !== "PUT") return route.continue();
      puts++;
      await held;
      await route.continue();
    });
    for (let i = 0; i < 5; i++) await page.keyboard.press("Control+s");
    await expect.poll(() => puts).toBe(1);
    release();
    await expect.poll(() => status(page)).toBe(TEXT.en.saved);
    // The queued saves found nothing left to save: one PUT, one new version.
    expect(puts).toBe(1);
    expect(await versionNumbers(workflow.id)).toEqual([1, 2]);
    await context.close();
  });

  for (const lang of ["en", "vi"] as const) {
    it(`refuses a 10,000-character name with a clear message, as the server does (${lang})`, async () => {
      const workflow = await create(`Tên dài ${lang}`);
      const { context, page } = await openSignedIn(lang);
      await openEditor(page, workflow.id);
      await page.getByRole("button", { name: TEXT[lang].rename, exact: true }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("textbox", { name: TEXT[lang].name }).fill("x".repeat(10_000));
      await dialog.getByRole("button", { name: TEXT[lang].apply }).click();
      expect(await dialog.getByTestId("field-error").textContent()).toBe(TEXT[lang].nameTooLong);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `editor-save-name-too-long-${lang}`);
      await page.keyboard.press("Escape");
      expect(await title(page)).toBe(`Tên dài ${lang}`);
      expect(await status(page)).toBe(TEXT[lang].saved);
      // The server's own answer to that name: VALIDATION_FAILED, and nothing stored.
      const refused = await api(suite.studio, "PUT", `/api/workflows/${workflow.id}`, {
        token: suite.token,
        body: { ...EMPTY, name: "x".repeat(10_000) },
      });
      expect([refused.status, refused.body.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
      expect(await versionNumbers(workflow.id)).toEqual([1]);
      await context.close();
    });
  }

  for (const lang of ["en", "vi"] as const) {
    it(`offers a closed tab's edits back and restores them, or discards them (${lang})`, async () => {
      const workflow = await create(`Nhật ký ${lang}`);
      const { context, page } = await openSignedIn(lang);
      await openEditor(page, workflow.id);
      await rename(page, lang, "Chưa lưu 📝");
      // The journal holds the edit within about a second, with no save and no flush on close.
      await expect.poll(() => journalNames(page, workflow.id)).toEqual(["Chưa lưu 📝"]);
      await page.close({ runBeforeUnload: false });

      const again = await context.newPage();
      await openEditor(again, workflow.id);
      const offer = again.getByRole("alertdialog", { name: TEXT[lang].offerTitle });
      await offer.waitFor();
      expect(await title(again)).toBe(`Nhật ký ${lang}`);
      expect(await seriousViolations(again)).toEqual([]);
      await screenshot(again, `editor-save-journal-offer-${lang}`);
      await offer.getByRole("button", { name: TEXT[lang].restore }).click();
      expect(await title(again)).toBe("Chưa lưu 📝");
      expect(await status(again)).toBe(TEXT[lang].unsaved);
      await again.keyboard.press("Control+s");
      await expect.poll(() => status(again)).toBe(TEXT[lang].saved);
      expect((await current(workflow.id)).name).toBe("Chưa lưu 📝");
      // Saved: the journal is dropped, so nothing is offered on the next opening.
      await expect.poll(() => journalNames(again, workflow.id)).toEqual([]);

      await rename(again, lang, "Sẽ bỏ đi");
      await expect.poll(() => journalNames(again, workflow.id)).toEqual(["Sẽ bỏ đi"]);
      await again.close({ runBeforeUnload: false });
      const third = await context.newPage();
      await openEditor(third, workflow.id);
      await third.getByRole("alertdialog").getByRole("button", { name: TEXT[lang].discard }).click();
      expect(await title(third)).toBe("Chưa lưu 📝");
      await expect.poll(() => journalNames(third, workflow.id)).toEqual([]);
      await third.reload();
      await third.getByTestId("save-status").waitFor();
      expect(await third.getByRole("alertdialog").count()).toBe(0);
      expect(await versionNumbers(workflow.id)).toEqual([1, 2]);
      await context.close();
    });
  }

  it("tells that a 5 MB document is larger than the server accepts, and keeps every edit", async () => {
    const workflow = (
      await api<WorkflowView>(suite.studio, "POST", "/api/workflows", {
        token: suite.token,
        body: {
          ...EMPTY,
          name: "Tài liệu 5 MB",
          nodes: [{ id: "big", type: "llm", position: { x: 0, y: 0 }, data: { prompt: "ngắn" } }],
        },
      })
    ).body.data as WorkflowView;
    const { context, page } = await openSignedIn("vi");
    await openEditor(page, workflow.id);
    await rename(page, "vi", "Tài liệu 5 MB đã sửa");
    await expect.poll(() => journalNames(page, workflow.id)).toEqual(["Tài liệu 5 MB đã sửa"]);
    await page.close({ runBeforeUnload: false });
    // A crashed session left a 5 MB prompt in the journal (no control of ours can type that much
    // here yet; a paste or a JSON edit can): written while no editor is open, it comes back
    // through the real restore.
    const again = await context.newPage();
    await again.goto(`${suite.studio.url}/workflows`);
    await again.evaluate(
      ({ workflowId, size }) =>
        new Promise<void>((resolve, reject) => {
          const opening = indexedDB.open("superstep-editor-journal");
          opening.onerror = () => reject(opening.error);
          opening.onsuccess = () => {
            const db = opening.result;
            const store = db.transaction("journal", "readwrite").objectStore("journal");
            const all = store.getAll();
            all.onsuccess = () => {
              const record = (all.result as { workflowId: string; content: { document: Doc } }[]).find(
                (r) => r.workflowId === workflowId,
              );
              if (!record) return reject(new Error("no journal record"));
              (record.content.document.nodes[0] as Doc["nodes"][number]).data.prompt = "đ".repeat(size);
              const put = store.put(record);
              put.onsuccess = () => {
                db.close();
                resolve();
              };
              put.onerror = () => reject(put.error);
            };
          };
        }),
      { workflowId: workflow.id, size: 5 * 1024 * 1024 },
    );
    await openEditor(again, workflow.id);
    await again.getByRole("alertdialog").getByRole("button", { name: TEXT.vi.restore }).click();
    await again.keyboard.press("Control+s");
    const failure = again.getByTestId("save-failure");
    await failure.waitFor();
    expect(await failure.textContent()).toContain(TEXT.vi.tooLarge);
    expect(await failure.textContent()).toContain("Hãy sửa theo thông báo rồi lưu lại.");
    expect(await status(again)).toBe(TEXT.vi.notSaved);
    expect(await title(again)).toBe("Tài liệu 5 MB đã sửa");
    await screenshot(again, "editor-save-too-large-vi");
    expect(await versionNumbers(workflow.id)).toEqual([1]);
    // Every edit is still there: saving again is refused again for the same reason (the whole
    // 5 MB prompt is still in the document), and the journal keeps the name and the prompt.
    await failure.getByRole("button", { name: TEXT.vi.dismiss }).click();
    await again.getByRole("button", { name: TEXT.vi.save, exact: true }).click();
    await failure.waitFor();
    expect(await failure.textContent()).toContain(TEXT.vi.tooLarge);
    await expect
      .poll(() =>
        again.evaluate(
          (workflowId) =>
            new Promise<[string, number] | null>((resolve) => {
              const opening = indexedDB.open("superstep-editor-journal");
              opening.onsuccess = () => {
                const all = opening.result.transaction("journal").objectStore("journal").getAll();
                all.onsuccess = () => {
                  const record = (all.result as { workflowId: string; content: { document: Doc } }[]).find(
                    (r) => r.workflowId === workflowId,
                  );
                  opening.result.close();
                  const doc = record?.content.document;
                  resolve(doc ? [doc.name, String(doc.nodes[0]?.data.prompt).length] : null);
                };
              };
            }),
          workflow.id,
        ),
      )
      .toEqual(["Tài liệu 5 MB đã sửa", 5 * 1024 * 1024]);
    expect((await current(workflow.id)).document.nodes[0]?.data.prompt).toBe("ngắn");
    await context.close();
  });

  it("offers back edits whose version was saved over since, and merges them with the server's on save", async () => {
    const workflow = await create("Phiên cũ");
    const { context, page } = await openSignedIn("en");
    await openEditor(page, workflow.id);
    await rename(page, "en", "Renamed in a closed tab");
    await expect.poll(() => journalNames(page, workflow.id)).toEqual(["Renamed in a closed tab"]);
    await page.close({ runBeforeUnload: false });
    const serverDoc: Doc = {
      ...(await current(workflow.id)).document,
      nodes: [{ id: "server_node", type: "join", position: { x: 0, y: 0 }, data: { label: "Added on the server" } }],
    };
    expect(
      (await api(suite.studio, "PUT", `/api/workflows/${workflow.id}`, { token: suite.token, body: serverDoc })).status,
    ).toBe(200);

    const again = await context.newPage();
    await openEditor(again, workflow.id);
    const offer = again.getByRole("alertdialog", { name: TEXT.en.offerTitle });
    expect(await offer.getByTestId("journal-offer-stale").textContent()).toContain("since version 1");
    await offer.getByRole("button", { name: TEXT.en.restore }).click();
    await again.keyboard.press("Control+s");
    const dialog = again.getByRole("dialog", { name: TEXT.en.conflictTitle });
    await dialog.getByRole("button", { name: TEXT.en.merge }).click();
    await again.getByRole("button", { name: TEXT.en.checkResult }).click();
    await again.keyboard.press("Control+s");
    await expect.poll(() => status(again)).toBe(TEXT.en.saved);
    const stored = await current(workflow.id);
    expect([stored.name, stored.document.nodes.map((n) => n.id)]).toEqual(["Renamed in a closed tab", ["server_node"]]);
    expect(await versionNumbers(workflow.id)).toEqual([1, 2, 3]);
    await context.close();
  });

  it("warns that edits are not kept when the browser has no IndexedDB, and editing and saving still work", async () => {
    const workflow = await create("Không có IndexedDB");
    const { context, page } = await openSignedIn();
    await context.addInitScript(() => {
      Object.defineProperty(window, "indexedDB", { value: undefined, configurable: true });
    });
    await openEditor(page, workflow.id);
    await page.getByTestId("journal-warning").waitFor();
    expect(await page.getByTestId("journal-warning").textContent()).toContain(
      "Your edits could not be kept in this browser.",
    );
    await rename(page, "en", "Still editable");
    await page.keyboard.press("Control+s");
    await expect.poll(() => status(page)).toBe(TEXT.en.saved);
    expect((await current(workflow.id)).name).toBe("Still editable");
    await context.close();
  });

  for (const lang of ["en", "vi"] as const) {
    it(`refuses a stale save from a second tab, shows what changed, and merges (${lang})`, async () => {
      const workflow = await create(`Hai thẻ ${lang}`);
      const { context, page: first } = await openSignedIn(lang);
      const second = await context.newPage();
      await openEditor(first, workflow.id);
      await openEditor(second, workflow.id);

      // Someone else adds a node and saves (through the API, as any other client would): version 2.
      const serverDoc: Doc = {
        ...(await current(workflow.id)).document,
        nodes: [{ id: "server_node", type: "join", position: { x: 0, y: 0 }, data: { label: "Added on the server" } }],
      };
      const accepted = await api<WorkflowView>(suite.studio, "PUT", `/api/workflows/${workflow.id}`, {
        token: suite.token,
        body: serverDoc,
      });
      expect(accepted.status).toBe(200);
      // The second tab, still on version 1, renames and saves: refused, nothing stored.
      await rename(second, lang, "Tên từ thẻ hai");
      await second.keyboard.press("Control+s");
      const dialog = second.getByRole("dialog", { name: TEXT[lang].conflictTitle });
      await dialog.waitFor();
      expect(await dialog.getByTestId("conflict-changes").textContent()).toContain(TEXT[lang].nodeAdded);
      expect(await versionNumbers(workflow.id)).toEqual([1, 2]);
      expect(await seriousViolations(second)).toEqual([]);
      await screenshot(second, `editor-save-conflict-${lang}`);

      // Review: the server's version is shown read-only; the edits stay.
      await dialog.getByRole("button", { name: TEXT[lang].review }).click();
      await second.getByTestId("review-notice").waitFor();
      await dialog.waitFor({ state: "hidden" });
      expect(await title(second)).toBe("Tên từ thẻ hai");
      await screenshot(second, `editor-save-review-${lang}`);
      await second.getByRole("button", { name: TEXT[lang].backToMine }).click();
      // Closed without a choice, the dialog comes back with the next save.
      await second.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      await second.keyboard.press("Control+s");
      await dialog.waitFor();

      await dialog.getByRole("button", { name: TEXT[lang].merge }).click();
      await second.getByRole("dialog", { name: TEXT[lang].mergedTitle }).waitFor();
      await second.getByRole("button", { name: TEXT[lang].checkResult }).click();
      const merged = JSON.parse(await jsonViewText(second)) as Doc;
      expect(merged.name).toBe("Tên từ thẻ hai");
      expect(merged.nodes.map((n) => n.id)).toEqual(["server_node"]);
      expect(await status(second)).toBe(TEXT[lang].unsaved);
      expect(await versionNumbers(workflow.id)).toEqual([1, 2]);

      await second.keyboard.press("Control+s");
      await expect.poll(() => status(second)).toBe(TEXT[lang].saved);
      const stored = await current(workflow.id);
      expect([stored.version, stored.name, stored.document.nodes.map((n) => n.id)]).toEqual([
        3,
        "Tên từ thẻ hai",
        ["server_node"],
      ]);
      expect(await versionNumbers(workflow.id)).toEqual([1, 2, 3]);

      // The first tab, still on version 1, saves: refused too; it overwrites, as one more version.
      await rename(first, lang, "Ghi đè từ thẻ một");
      await first.keyboard.press("Control+s");
      const firstDialog = first.getByRole("dialog", { name: TEXT[lang].conflictTitle });
      await firstDialog.waitFor();
      expect(await firstDialog.getByTestId("conflict-changes").textContent()).toContain(TEXT[lang].nameChanged);
      await firstDialog.getByRole("button", { name: TEXT[lang].overwrite }).click();
      await expect.poll(() => status(first)).toBe(TEXT[lang].saved);
      const overwritten = await current(workflow.id);
      expect([overwritten.version, overwritten.name, overwritten.document.nodes]).toEqual([4, "Ghi đè từ thẻ một", []]);
      expect(await versionNumbers(workflow.id)).toEqual([1, 2, 3, 4]);
      await context.close();
    });
  }

  it("keeps every edit when the server goes away in the middle of a save, and saves once it is back", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "superstep-e2e-save-"));
    const port = await freePort();
    const env = { STUDIO_DATA_DIR: dataDir, JWT_SECRET, STUDIO_PORT: String(port), STUDIO_AUTH_RATE_LIMIT: "10000" };
    let process = await startStudioProcess(env);
    const own: E2EStudio = { url: process.url, process, stop: async () => {} };
    const ownToken = await ownerToken(own);
    const workflow = await create("Máy chủ tắt giữa chừng", own, ownToken);
    const { context, page, errors } = await openContext(suite.browser, { lang: "vi" });
    await storeSession(page, own, ownToken);
    await openEditor(page, workflow.id, own);
    await rename(page, "vi", "Sửa lúc máy chủ tắt 🔌");

    // The save leaves the browser, then the server stops before it arrives.
    let arrived: () => void = () => {};
    const onItsWay = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let go: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      go = resolve;
    });
    await page.route(`**/api/workflows/${workflow.id}`, async (route) => {
      if (route.request().method() !== "PUT") return route.continue();
      arrived();
      await stopped;
      await route.continue().catch(() => undefined);
    });
    await page.getByRole("button", { name: TEXT.vi.save, exact: true }).click();
    await onItsWay;
    await process.stop();
    go();
    const failure = page.getByTestId("save-failure");
    await failure.waitFor();
    expect(await failure.textContent()).toContain(TEXT.vi.network);
    expect(await failure.textContent()).toContain("Hãy thử lại khi máy chủ phản hồi.");
    expect(await status(page)).toBe(TEXT.vi.notSaved);
    expect(await title(page)).toBe("Sửa lúc máy chủ tắt 🔌");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "editor-save-server-away-vi");
    await page.unroute(`**/api/workflows/${workflow.id}`);

    process = await startStudioProcess(env);
    own.process = process;
    await failure.getByRole("button", { name: TEXT.vi.retry }).click();
    await expect.poll(() => status(page)).toBe(TEXT.vi.saved);
    expect(await failure.count()).toBe(0);
    expect((await current(workflow.id, own, ownToken)).name).toBe("Sửa lúc máy chủ tắt 🔌");
    expect(await versionNumbers(workflow.id, own, ownToken)).toEqual([1, 2]);
    expect(errors).toEqual([]);
    await context.close();
    // Only this studio: the file's own studio stays up for the tests that follow.
    await process.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const lang of ["en", "vi"] as const) {
    it(`asks before leaving with unsaved changes, in the studio and when the tab closes (${lang})`, async () => {
      const workflow = await create(`Rời đi ${lang}`);
      const { context, page } = await openSignedIn(lang);
      await openEditor(page, workflow.id);
      // Nothing unsaved: leaving does not ask.
      await page.getByRole("link", { name: TEXT[lang].back }).click();
      await page.getByTestId("workflow-row").first().waitFor();
      await openEditor(page, workflow.id);

      await rename(page, lang, "Chưa lưu khi rời đi");
      await page.getByRole("link", { name: TEXT[lang].back }).click();
      const ask = page.getByRole("alertdialog", { name: TEXT[lang].leaveTitle });
      await ask.waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `editor-save-leave-${lang}`);
      await ask.getByRole("button", { name: TEXT[lang].stay }).click();
      expect(new URL(page.url()).pathname).toBe(`/workflows/${workflow.id}`);
      expect(await title(page)).toBe("Chưa lưu khi rời đi");

      // Closing the tab: the browser's own question.
      const asked = new Promise<string>((resolve) =>
        page.once("dialog", (dialog) => {
          resolve(dialog.type());
          void dialog.dismiss();
        }),
      );
      await page.close({ runBeforeUnload: true });
      expect(await asked).toBe("beforeunload");

      const again = await context.newPage();
      await openEditor(again, workflow.id);
      await again.getByRole("alertdialog").getByRole("button", { name: TEXT[lang].restore }).click();
      await again.getByRole("link", { name: TEXT[lang].back }).click();
      await again
        .getByRole("alertdialog", { name: TEXT[lang].leaveTitle })
        .getByRole("button", { name: TEXT[lang].leave })
        .click();
      await again.getByTestId("workflow-row").first().waitFor();
      expect((await current(workflow.id)).version).toBe(1);
      await context.close();
    });
  }
});

/** A port nothing listens on now, so a restarted studio can come back at the same address. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
