// The editor's canvas in a browser, against the real studio: building a workflow by dragging nodes
// from the palette and connecting their handles, copy and paste (also into a second workflow),
// 30 random canvas edits undone and redone byte for byte, a keyboard-only build, the outline, and
// axe-core on the editor with its palette, shortcut sheet and outline open.
import { readFileSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  api,
  createWorkflow,
  jsonViewText,
  type Lang,
  openContext,
  screenshot,
  seriousViolations,
  storeSession,
} from "./studio.js";
import { studioSuite } from "./studio-suite.js";

type Box = { x: number; y: number; width: number; height: number };

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

const TRIAGE = JSON.parse(readFileSync(new URL("../examples/triage.json", import.meta.url), "utf8")) as Doc;

/** A small deterministic random source, so a failing sequence can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  const suite = studioSuite();

  async function createByApi(document: Doc): Promise<WorkflowView> {
    return createWorkflow<WorkflowView>(suite.studio, suite.token, document);
  }

  async function openEditor(workflow: WorkflowView, lang: Lang = "en", theme: "light" | "dark" = "light") {
    const opened = await openContext(suite.browser, {
      lang,
      theme,
      extra: { viewport: { width: 1600, height: 1000 }, permissions: ["clipboard-read", "clipboard-write"] },
    });
    await storeSession(opened.page, suite.studio, suite.token);
    await gotoEditor(opened.page, workflow);
    return opened;
  }

  async function gotoEditor(page: Page, workflow: WorkflowView) {
    await page.goto(`${suite.studio.url}/workflows/${workflow.id}`);
    await page.getByTestId("workflow-canvas").locator(".react-flow__pane").waitFor();
  }

  /** The document as the JSON panel shows it (the exact text, and parsed). */
  async function shownText(page: Page): Promise<string> {
    return jsonViewText(page);
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

  async function fitView(page: Page) {
    await page
      .getByRole("button", { name: "Fit View" })
      .or(page.locator(".react-flow__controls-fitview"))
      .first()
      .click();
  }

  /** Drags from a node's output handle to another node's input handle with the mouse. */
  async function connectHandles(page: Page, source: string, handle: string, target: string) {
    const from = page.locator(`.react-flow__handle.source[data-nodeid="${source}"][data-handleid="${handle}"]`);
    const to = page.locator(`.react-flow__handle.target[data-nodeid="${target}"]`);
    // The canvas draws only the nodes in view: a panel that opens after the view was fitted (and
    // shrinks the canvas) can leave one outside it, as a person would see; they fit the view again.
    await expect
      .poll(async () => {
        if ((await from.count()) > 0 && (await to.count()) > 0) return true;
        await fitView(page);
        return false;
      })
      .toBe(true);
    // Where the handles are once the view has stopped moving (a fit, or a panel that just opened
    // and resized the canvas, moves them): the same boxes twice in a row.
    let last = "";
    let boxes: { a: Box; b: Box } | null = null;
    await expect
      .poll(async () => {
        const a = await from.boundingBox();
        const b = await to.boundingBox();
        const now = JSON.stringify([a, b]);
        const steady = a !== null && b !== null && now === last;
        last = now;
        if (steady) boxes = { a, b };
        return steady;
      })
      .toBe(true);
    // Set by the poll once it passed (TypeScript cannot see the callback's assignment).
    const { a, b } = boxes as unknown as { a: Box; b: Box };
    const edges = await page.locator(".react-flow__edge").count();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
    await page.mouse.up();
    // The connection is drawn before the next one is made.
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(edges + 1);
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

      await fitView(page);
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
  /**
   * Types on the keyboard once `input` has the focus, as a person waits to see the cursor: keys sent
   * while a dialog is still moving the focus to its input would be lost.
   */
  async function typeOnceFocused(page: Page, input: Locator, text: string) {
    await input.waitFor();
    await expect.poll(() => input.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(text);
  }

  /** Runs a command palette entry: opens it with Ctrl+K, types, presses Enter. */
  async function palette(page: Page, text: string) {
    await page.keyboard.press("Control+k");
    const input = page.getByTestId("command-palette-input");
    await typeOnceFocused(page, input, text);
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "detached" });
  }

  /** Selects a node the way a person finds one: Ctrl+K, its id, Enter (the view centres on it). */
  async function goTo(page: Page, id: string) {
    await page.keyboard.press("Control+k");
    await typeOnceFocused(page, page.getByTestId("command-palette-input"), id);
    await page.getByTestId(`palette-node-${id}`).click();
    await page.getByTestId("command-palette-input").waitFor({ state: "detached" });
    await expect.poll(() => page.locator(`.react-flow__node.selected[data-id="${id}"]`).count()).toBe(1);
  }

  /** Clicks an empty place of the canvas, so keys go to the canvas and nothing is selected. */
  async function clickPane(page: Page) {
    const box = await page.getByTestId("workflow-canvas").boundingBox();
    if (!box) throw new Error("no canvas");
    await page.mouse.click(box.x + box.width - 12, box.y + 12);
  }

  /** Presses Tab until `target` has the focus, as a keyboard user reaches a control. */
  async function tabTo(page: Page, target: Locator, max = 200) {
    await target.waitFor();
    for (let i = 0; i < max; i++) {
      if (await target.evaluate((element) => element === document.activeElement)) return;
      await page.keyboard.press("Tab");
    }
    throw new Error(`${max} presses of Tab did not reach ${target}`);
  }

  /** The outline row that has the keyboard focus. */
  async function focusedKey(page: Page): Promise<string | null> {
    return page.evaluate(() => document.activeElement?.getAttribute("data-key") ?? null);
  }

  async function undoAll(page: Page) {
    const undo = page.getByTestId("history-undo");
    while (await undo.isEnabled()) await page.keyboard.press("Control+z");
  }
  async function redoAll(page: Page) {
    const redo = page.getByTestId("history-redo");
    while (await redo.isEnabled()) await page.keyboard.press("Control+Shift+z");
  }

  it("copies and pastes through the system clipboard: new unique ids, inner edges and references kept, also into a second workflow", async () => {
    const source = await createByApi({ ...TRIAGE, name: "Copy source" });
    const target = await createByApi({ name: "Paste target", state: [], nodes: [], edges: [] });
    const { context, page, errors } = await openEditor(source);
    const original = await shown(page);
    await clickPane(page);
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await expect.poll(async () => (await shown(page)).nodes.length).toBe(original.nodes.length * 2);
    const pasted = await shown(page);
    const ids = pasted.nodes.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    const copies = pasted.nodes.slice(original.nodes.length);
    const rename = new Map(original.nodes.map((n, i) => [n.id, (copies[i] as Node).id]));
    for (const [i, node] of original.nodes.entries()) {
      const copy = copies[i] as Node;
      expect(copy.type).toBe(node.type);
      // Settings, and so every {{state.…}} reference in them, come over unchanged.
      expect(copy.data).toEqual(node.data);
      expect(original.nodes.some((n) => n.id === copy.id)).toBe(false);
    }
    const inner = original.edges.filter((e) => rename.has(e.source) && rename.has(e.target));
    const pastedEdges = pasted.edges.slice(original.edges.length);
    expect(pastedEdges.map((e) => [e.source, e.target, e.label ?? null])).toEqual(
      inner.map((e) => [rename.get(e.source), rename.get(e.target), e.label ?? null]),
    );
    // The pasted nodes are selected; undoing the paste leaves no selection of nodes that are gone.
    await page.getByTestId("panel-tab-settings").click();
    await expect.poll(() => page.getByTestId("settings-many").count()).toBe(1);
    await page.keyboard.press("Control+z");
    await expect.poll(async () => (await nodeIds(page)).length).toBe(original.nodes.length);
    await expect.poll(() => page.getByTestId("settings-many").count()).toBe(0);

    // A second tab, another workflow: the same clipboard pastes there, with the state fields it uses.
    const second = await context.newPage();
    await gotoEditor(second, target);
    await clickPane(second);
    await second.keyboard.press("Control+v");
    await expect.poll(async () => (await shown(second)).nodes.length).toBe(original.nodes.length);
    const there = await shown(second);
    expect(there.nodes.map((n) => n.data)).toEqual(original.nodes.map((n) => n.data));
    expect(there.edges).toHaveLength(inner.length);
    // Cut takes the selection out as one step; paste puts it back.
    const cutNode = there.nodes[1] as Node;
    await goTo(second, cutNode.id);
    await second.keyboard.press("Control+x");
    await expect.poll(async () => (await shown(second)).nodes.length).toBe(original.nodes.length - 1);
    await clickPane(second);
    await second.keyboard.press("Control+v");
    await expect.poll(async () => (await shown(second)).nodes.length).toBe(original.nodes.length);
    expect((await shown(second)).nodes.at(-1)?.data).toEqual(cutNode.data);
    expect(there.state.map((f) => f.name).sort()).toEqual(
      original.state
        .map((f) => f.name)
        .filter((name) => JSON.stringify(original.nodes).includes(name))
        .sort(),
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it("undoes 30 random canvas edits back to the original document byte for byte, and redoes them to the final one", async () => {
    const workflow = await createByApi({ ...TRIAGE, name: "Random edits" });
    const { context, page, errors } = await openEditor(workflow);
    const originalText = await shownText(page);
    const random = seeded(20261201);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const types = ["code", "llm", "tool", "join", "human", "send_email", "condition"];
    const done: string[] = [];
    for (let step = 0; step < 30; step++) {
      const ids = await nodeIds(page);
      const kind =
        ids.length < 3
          ? "add"
          : pick(["add", "drag", "nudge", "delete", "duplicate", "connect", "paste", "layout", "note"]);
      done.push(kind);
      if (kind === "add") {
        await page.getByTestId(`palette-${pick(types)}`).click();
        continue;
      }
      if (kind === "layout") {
        await clickPane(page);
        await page.keyboard.press("Shift+L");
        continue;
      }
      if (kind === "note") {
        await clickPane(page);
        await page.keyboard.press("Shift+N");
        await clickPane(page);
        continue;
      }
      const id = pick(ids);
      await goTo(page, id);
      const node = page.locator(`.react-flow__node[data-id="${id}"]`);
      if (kind === "drag") {
        const box = await node.boundingBox();
        if (!box) throw new Error("node not shown");
        await page.mouse.move(box.x + box.width / 2, box.y + 12);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width / 2 + 60, box.y + 52, { steps: 6 });
        await page.mouse.up();
      } else if (kind === "nudge") {
        await node.focus();
        await page.keyboard.press("ArrowRight");
        await page.keyboard.press("ArrowDown");
      } else if (kind === "delete") await page.keyboard.press("Delete");
      else if (kind === "duplicate") await page.keyboard.press("Control+d");
      else if (kind === "connect") {
        await page.keyboard.press("c");
        await page.getByTestId("command-palette-input").waitFor();
        await page.keyboard.press("Enter");
        await page.getByTestId("command-palette-input").waitFor({ state: "detached" });
      } else if (kind === "paste") {
        await page.keyboard.press("Control+c");
        await page.keyboard.press("Control+v");
      }
    }
    const finalText = await shownText(page);
    expect(finalText).not.toBe(originalText);
    await undoAll(page);
    expect(await shownText(page)).toBe(originalText);
    await redoAll(page);
    expect(await shownText(page)).toBe(finalText);
    // The history list names the steps.
    await page.getByTestId("history-list-button").click();
    expect(await page.getByTestId("history-list").getByRole("menuitem").count()).toBeGreaterThan(5);
    await screenshot(page, "canvas-history-list-en-light");
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("arranges the workflow automatically as one undo step, and selects up- and downstream", async () => {
    const workflow = await createByApi({ ...TRIAGE, name: "Layout" });
    const { context, page, errors } = await openEditor(workflow);
    const before = await shownText(page);
    await clickPane(page);
    await page.keyboard.press("Shift+L");
    await expect.poll(() => shownText(page)).not.toBe(before);
    const laidOut = JSON.parse(await shownText(page)) as Doc;
    // Left to right: every connection between drawn nodes goes to a node further right.
    const x = new Map(laidOut.nodes.map((n) => [n.id, n.position.x]));
    for (const e of laidOut.edges)
      if (x.has(e.source) && x.has(e.target)) expect(x.get(e.target)).toBeGreaterThan(x.get(e.source) as number);
    await page.keyboard.press("Control+z");
    expect(await shownText(page)).toBe(before);

    await goTo(page, "route");
    await page.keyboard.press("Shift+ArrowRight");
    const selected = () =>
      page
        .locator(".react-flow__node.selected")
        .evaluateAll((els) => els.map((el) => el.getAttribute("data-id")).sort());
    await expect.poll(selected).toEqual(["approve", "draft", "end", "route"].filter((id) => x.has(id)).sort());
    await goTo(page, "route");
    await page.keyboard.press("Shift+ArrowLeft");
    await expect.poll(selected).toEqual(["classify", "route", "start"].filter((id) => x.has(id)).sort());
    expect(errors).toEqual([]);
    await context.close();
  });

  it("selects several nodes with Ctrl+click and Shift+click, and Ctrl+click takes one out again", async () => {
    const workflow = await createByApi({ ...TRIAGE, name: "Multi-select" });
    const { context, page, errors } = await openEditor(workflow);
    const selected = () =>
      page
        .locator(".react-flow__node.selected")
        .evaluateAll((els) => els.map((el) => el.getAttribute("data-id")).sort());
    await page.getByTestId("canvas-node-classify").click();
    await expect.poll(selected).toEqual(["classify"]);
    await page.getByTestId("canvas-node-route").click({ modifiers: ["Control"] });
    await page.getByTestId("canvas-node-draft").click({ modifiers: ["Shift"] });
    await expect.poll(selected).toEqual(["classify", "draft", "route"]);
    await page.getByTestId("canvas-node-route").click({ modifiers: ["Control"] });
    await expect.poll(selected).toEqual(["classify", "draft"]);
    // A plain click selects only the node clicked.
    await page.getByTestId("canvas-node-route").click();
    await expect.poll(selected).toEqual(["route"]);
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const lang of ["en", "vi"] as const) {
    it(`builds, configures, connects and saves a 3-node workflow with the keyboard only (${lang})`, async () => {
      const workflow = await createByApi({ name: `Keys ${lang}`, state: [], nodes: [], edges: [] });
      const { context, page, errors } = await openEditor(workflow, lang);
      const names =
        lang === "en"
          ? { start: "Start", code: "Code", end: "End" }
          : { start: "Bắt đầu", code: "Mã", end: "Kết thúc" };
      const labels =
        lang === "en"
          ? { start: "Begin here", code: "Count the words", end: "All done" }
          : { start: "Bắt đầu từ đây", code: "Đếm số từ 🚀", end: "Xong hết" };
      await palette(page, TEXT[lang].add(names.end));
      await palette(page, TEXT[lang].add(names.code));
      // "C" connects the selected node (the new Code) to a node chosen by name.
      await page.keyboard.press("c");
      await typeOnceFocused(page, page.getByPlaceholder(TEXT[lang].connectTo), names.end);
      await page.keyboard.press("Enter");
      await palette(page, TEXT[lang].add(names.start));
      await page.keyboard.press("c");
      await typeOnceFocused(page, page.getByPlaceholder(TEXT[lang].connectTo), "code_1");
      await page.keyboard.press("Enter");

      // Each node's settings: found with Ctrl+K, reached with Tab, typed into.
      for (const [id, label] of [
        ["start", labels.start],
        ["code_1", labels.code],
        ["end", labels.end],
      ] as const) {
        await palette(page, `node:${id}`);
        await page.locator(`[data-testid="node-settings"][data-node-id="${id}"]`).waitFor();
        await tabTo(page, page.getByTestId("settings-label"));
        await page.keyboard.type(label);
        await page.keyboard.press("Tab");
        if (id === "code_1") {
          // Tab goes on through the language to the code, whose text is replaced.
          await tabTo(page, page.getByTestId("setting-code-editor").locator(".cm-content"));
          await page.keyboard.press("Control+a");
          await page.keyboard.type("const words = 3;");
        }
      }
      // Saved from the keyboard, the focus still in the End node's settings: what was typed last is in it.
      await page.keyboard.press("Control+s");
      await page.locator('[data-testid="save-status"][data-status="saved"]').waitFor();
      const saved = (
        await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${workflow.id}`, { token: suite.token })
      ).body.data as WorkflowView;
      expect(saved.version).toBe(2);
      expect(saved.document.nodes.map((n) => [n.id, n.type, n.data.label])).toEqual([
        ["end", "end", labels.end],
        ["code_1", "code", labels.code],
        ["start", "start", labels.start],
      ]);
      expect(saved.document.nodes.find((n) => n.id === "code_1")?.data.code).toBe("const words = 3;");
      expect(saved.document.edges.map((e) => [e.source, e.target])).toEqual([
        ["code_1", "end"],
        ["start", "code_1"],
      ]);
      expect(await seriousViolations(page)).toEqual([]);
      // Undo from the keyboard takes back the last step (End's label); the next save stores that.
      await tabTo(page, page.getByTestId("history-undo"));
      await page.keyboard.press("Control+z");
      await page.keyboard.press("Control+s");
      await expect
        .poll(async () => {
          const now = await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${workflow.id}`, {
            token: suite.token,
          });
          return now.body.data?.version;
        })
        .toBe(3);
      const undone = (
        await api<WorkflowView>(suite.studio, "GET", `/api/workflows/${workflow.id}`, { token: suite.token })
      ).body.data as WorkflowView;
      expect(undone.document.nodes.find((n) => n.id === "end")?.data.label).toBeUndefined();
      expect(undone.document.nodes.find((n) => n.id === "code_1")?.data).toMatchObject({
        label: labels.code,
        code: "const words = 3;",
      });
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("edits through the outline tree with the keyboard: rename, connect, delete", async () => {
    const workflow = await createByApi({
      name: "Outline",
      state: [],
      nodes: [
        { id: "a", type: "code", position: { x: 0, y: 0 }, data: {} },
        { id: "b", type: "code", position: { x: 300, y: 0 }, data: {} },
        { id: "c", type: "code", position: { x: 600, y: 0 }, data: {} },
      ],
      edges: [{ id: "e1", source: "a", target: "b" }],
    });
    const { context, page, errors } = await openEditor(workflow);
    await page.getByTestId("panel-tab-outline").click();
    const tree = page.getByRole("tree", { name: "Outline of the workflow" });
    await tree.waitFor();
    // Implicit Start first, then a, its edge, b, c, implicit End.
    await page.getByTestId("outline-node-a").focus();
    await page.keyboard.press("F2");
    await page.keyboard.type("Fetch orders");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("outline-node-a").textContent()).toContain("Fetch orders");
    await expect.poll(() => focusedKey(page)).toBe("n:a");
    await page.keyboard.press("ArrowDown"); // the edge a → b
    await page.keyboard.press("ArrowDown"); // b
    await page.keyboard.press("c");
    const form = page.getByTestId("outline-connect-form");
    await form.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter"); // the first target: a
    await expect.poll(() => focusedKey(page)).toBe("n:b");
    await page.keyboard.press("ArrowDown"); // b's new edge
    await page.keyboard.press("ArrowDown"); // c
    await page.keyboard.press("Delete");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "outline-en-light");
    const doc = JSON.parse(await jsonViewText(page)) as Doc;
    expect(doc.nodes.map((n) => [n.id, n.data.label ?? null])).toEqual([
      ["a", "Fetch orders"],
      ["b", null],
    ]);
    expect(doc.edges.map((e) => [e.source, e.target])).toEqual([
      ["a", "b"],
      ["b", "a"],
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const [lang, theme] of [
    ["en", "light"],
    ["vi", "dark"],
  ] as const) {
    it(`has no serious or critical axe-core violation on the editor, its command palette and shortcut sheet (${lang}, ${theme})`, async () => {
      const workflow = await createByApi({ ...TRIAGE, name: `Axe ${lang}` });
      const { context, page, errors } = await openEditor(workflow, lang, theme);
      await expect.poll(() => nodeIds(page)).toContain("route");
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `canvas-${lang}-${theme}`);
      await page.keyboard.press("Control+k");
      await page.getByPlaceholder(TEXT[lang].palette).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `command-palette-${lang}-${theme}`);
      await page.keyboard.press("Escape");
      await clickPane(page);
      await page.keyboard.press("?");
      await page.getByRole("dialog", { name: TEXT[lang].shortcuts }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `shortcuts-${lang}-${theme}`);
      await page.keyboard.press("Escape");
      await page.getByTestId("panel-tab-outline").click();
      await page.getByRole("tree").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `outline-${lang}-${theme}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
