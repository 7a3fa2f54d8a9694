// Running and debugging from the editor in a browser, against the real studio: the triage example
// runs with each node's status and output on the canvas and in the trace, a Human form resumes
// the run, One step walks it superstep by superstep, the state changes name their writers, and a
// fork starts from a chosen superstep. Both languages where text matters.
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeOpenAI, type FakeServer } from "../backend/test/fake-openai-server.js";
import { api, createWorkflow, type Lang, openContext, screenshot, seriousViolations, storeSession } from "./studio.js";
import { studioSuite } from "./studio-suite.js";

interface Doc {
  name: string;
  state: { name: string; type: string; default?: unknown }[];
  nodes: { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> }[];
  edges: { id: string; source: string; target: string; label?: string }[];
}

const TRIAGE = JSON.parse(readFileSync(new URL("../examples/triage.json", import.meta.url), "utf8")) as Doc;

const TEXT = {
  en: {
    run: "Run",
    step: "One step",
    submit: "Send and continue",
    finished: "finished",
    waiting: "waiting for a person",
    required: "is required",
    nodeGone: "node deleted: unpin it",
    pinGoneRefused: "A pinned node is no longer in the workflow; remove its pin.",
  },
  vi: {
    run: "Chạy",
    step: "Một bước",
    submit: "Gửi và chạy tiếp",
    finished: "đã xong",
    waiting: "đang chờ người trả lời",
    required: "là bắt buộc",
    nodeGone: "nút đã bị xoá: hãy bỏ ghim",
    pinGoneRefused: "Một nút đã ghim không còn trong quy trình; hãy bỏ ghim nút đó.",
  },
} as const;

/** Start → an LLM node "Reply" (the fake server at `baseUrl`) → the `then` nodes in a chain → End. */
function replyWorkflow(name: string, baseUrl: string, then: Doc["nodes"] = [], extraState: Doc["state"] = []): Doc {
  const chain = [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: ["message"] } },
    {
      id: "reply",
      type: "llm",
      position: { x: 250, y: 0 },
      data: {
        label: "Reply",
        provider: "openai",
        model: "fake",
        base_url: baseUrl,
        prompt: "{{state.message}}",
        output_field: "answer",
      },
    },
    ...then,
    { id: "end", type: "end", position: { x: 250 * (then.length + 2), y: 0 }, data: {} },
  ];
  return {
    name,
    state: [{ name: "message", type: "string", default: "hi" }, { name: "answer", type: "string" }, ...extraState],
    nodes: chain,
    edges: chain.slice(1).map((node, i) => ({ id: `e${i + 1}`, source: chain[i]?.id as string, target: node.id })),
  };
}

describe("running a workflow from the editor in a browser", () => {
  // LLM nodes call a local fake OpenAI-compatible server, which counts the calls.
  const suite = studioSuite({ env: { STUDIO_EGRESS_ALLOW: "127.0.0.1" } });
  let llm: FakeServer;
  beforeAll(async () => {
    llm = await createFakeOpenAI({ reply: () => ({ text: "Hello from the fake model." }) });
  });
  afterAll(() => llm.close());

  async function openEditor(document: Doc, lang: Lang, theme: "light" | "dark" = "light") {
    const workflow = await createWorkflow<{ id: string }>(suite.studio, suite.token, document);
    const opened = await openContext(suite.browser, { lang, theme });
    await storeSession(opened.page, suite.studio, suite.token);
    await opened.page.goto(`${suite.studio.url}/workflows/${workflow.id}`);
    await opened.page.getByTestId("workflow-title").waitFor();
    return { ...opened, workflowId: workflow.id };
  }

  const runStatus = (page: Page) => page.getByTestId("run-status");
  const nodeStatus = (page: Page, id: string) =>
    page.getByTestId(`canvas-node-run-${id}`).getAttribute("data-run-status");

  /** Whether a node is drawn wholly inside the visible canvas. */
  async function insideCanvas(page: Page, nodeId: string): Promise<boolean> {
    const pane = await page.locator(".react-flow").boundingBox();
    const node = await page.locator(`.react-flow__node[data-id="${nodeId}"]`).boundingBox();
    if (!pane || !node) return false;
    return (
      node.x >= pane.x &&
      node.y >= pane.y &&
      node.x + node.width <= pane.x + pane.width &&
      node.y + node.height <= pane.y + pane.height
    );
  }

  async function waitForStatus(page: Page, status: string) {
    await page.locator(`[data-testid="run-status"][data-status="${status}"]`).waitFor({ timeout: 60_000 });
  }

  /** Opens the run panel, runs the workflow once (one model call) and opens its `reply` visit. */
  async function runOnceAndOpenReply(page: Page): Promise<number> {
    await page.getByTestId("run-panel-toggle").click();
    const calls = llm.requests.length;
    await page.getByTestId("run-start").click();
    await waitForStatus(page, "ok");
    expect(llm.requests.length).toBe(calls + 1);
    await page.getByTestId("run-tab-trace").click();
    await page.getByTestId("trace-visit-reply").click();
    return calls + 1;
  }

  /** Waits until a run other than `previous` (the one shown before) shows `status`. */
  async function waitForNextRun(page: Page, previous: string | null, status: string) {
    await page
      .locator(`[data-testid="run-status"][data-status="${status}"]:not([data-run-id="${previous}"])`)
      .waitFor({ timeout: 60_000 });
  }

  it.each(["en", "vi"] as const)(
    "runs the triage example, answers its Human form and shows each node's status and output (%s)",
    async (lang) => {
      const { context, page } = await openEditor(TRIAGE, lang, lang === "vi" ? "dark" : "light");
      try {
        await page.getByTestId("run-panel-toggle").click();
        // The canvas is shorter with the panel open: bring every node back into view.
        await page.locator(".react-flow__controls-fitview").click();
        await page.getByLabel("message").fill("Urgent: my order arrived broken, I want a refund");
        await page.getByRole("button", { name: TEXT[lang].run, exact: true }).click();
        await waitForStatus(page, "waiting");
        expect(await runStatus(page).textContent()).toBe(TEXT[lang].waiting);
        expect(await nodeStatus(page, "classify")).toBe("ok");
        expect(await nodeStatus(page, "approve")).toBe("waiting");
        const form = page.getByTestId("human-form");
        await expect.poll(() => form.textContent()).toContain("Urgent message: Urgent: my order arrived broken");
        await screenshot(page, `run-waiting-${lang}`);
        // The form is checked as the server checks it: the required answer is missing.
        await form.getByRole("button", { name: TEXT[lang].submit }).click();
        await expect
          .poll(() => form.getByTestId("human-form-problem").first().textContent())
          .toContain(TEXT[lang].required);
        await form.getByLabel("approved").check();
        await form.getByRole("button", { name: TEXT[lang].submit }).click();
        await waitForStatus(page, "ok");
        expect(await runStatus(page).textContent()).toBe(TEXT[lang].finished);
        for (const id of ["start", "classify", "route", "approve", "draft", "end"])
          expect(await nodeStatus(page, id)).toBe("ok");
        // The edges the run took are lit; the "normal" branch was not taken.
        const css = (await page.getByTestId("taken-edges-style").textContent()) ?? "";
        for (const id of ["e1", "e2", "e3", "e5", "e6"]) expect(css).toContain(`data-id="${id}"`);
        expect(css).not.toContain(`data-id="e4"`);
        // The trace lists the visits; a visit shows its output.
        await page.getByTestId("run-tab-trace").click();
        await page.getByTestId("trace-visit-draft").click();
        await expect
          .poll(() => page.getByTestId("visit-output").textContent())
          .toContain("Thanks for your message, we will get back to you right away.");
        await page.getByTestId("trace-visit-classify").click();
        await expect.poll(() => page.getByTestId("visit-output").textContent()).toContain('"priority": "urgent"');
        // The state changes name the field, its new value and the node that wrote it.
        await page.getByTestId("run-tab-state").click();
        const change = page.getByTestId(/^state-change-\d+-priority$/);
        await expect.poll(() => change.textContent()).toContain("urgent");
        expect(await change.textContent()).toContain("Classify");
        await screenshot(page, `run-finished-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it("walks a run one superstep at a time, then continues it to the end", async () => {
    const { context, page } = await openEditor(TRIAGE, "en");
    try {
      await page.getByTestId("run-panel-toggle").click();
      await page.locator(".react-flow__controls-fitview").click();
      await page.getByLabel("message").fill("Where is my parcel?");
      await page.getByTestId("run-step").click();
      await waitForStatus(page, "paused");
      // One superstep ran: Classify, and nothing after it.
      expect(await nodeStatus(page, "classify")).toBe("ok");
      expect(await page.getByTestId("canvas-node-run-route").count()).toBe(0);
      await page.getByTestId("run-step").click();
      await expect.poll(() => nodeStatus(page, "route")).toBe("ok");
      await waitForStatus(page, "paused");
      expect(await page.getByTestId("canvas-node-run-draft").count()).toBe(0);
      await page.getByTestId("run-continue").click();
      await waitForStatus(page, "ok");
      expect(await nodeStatus(page, "draft")).toBe("ok");
      expect(await nodeStatus(page, "approve")).toBe("skipped");
      await page.getByTestId("run-tab-trace").click();
      expect(await page.getByTestId("trace-count").textContent()).toBe("3 node runs");
    } finally {
      await context.close();
    }
  });

  it("fixes a Code node that failed and forks from the step before it without calling the LLM again", async () => {
    const document = replyWorkflow(
      "Fix and fork",
      llm.url,
      [
        {
          id: "upper",
          type: "code",
          position: { x: 500, y: 0 },
          data: {
            label: "Shout",
            language: "javascript",
            code: "function main(state) {\n  throw new Error('not written yet');\n}",
            outputs: ["shout"],
          },
        },
      ],
      [{ name: "shout", type: "string" }],
    );
    const calls = llm.requests.length;
    const { context, page } = await openEditor(document, "en");
    try {
      await page.getByTestId("run-panel-toggle").click();
      await page.locator(".react-flow__controls-fitview").click();
      await page.getByTestId("run-start").click();
      await waitForStatus(page, "error");
      expect(llm.requests.length).toBe(calls + 1);
      expect(await nodeStatus(page, "reply")).toBe("ok");
      expect(await nodeStatus(page, "upper")).toBe("error");
      await page.getByTestId("run-tab-trace").click();
      await page.getByTestId("trace-visit-reply").click();
      await expect.poll(() => page.getByTestId("visit-tokens").textContent()).toContain("Hello from the fake model.");
      await page.getByTestId("trace-visit-upper").click();
      await expect.poll(() => page.getByTestId("visit-error").textContent()).toContain("not written yet");

      // Fix the node in the editor (not saved), then fork from the step before it.
      await page.getByTestId("settings-node-picker").selectOption("upper");
      const code = page.getByTestId("setting-code").locator(".cm-content").first();
      await code.waitFor();
      await code.fill("function main(state) {\n  return { shout: state.answer.toUpperCase() };\n}");
      await page.getByTestId("node-settings").locator("h2").click();
      await page.getByTestId("visit-fork").click();
      const dialog = page.getByTestId("fork-dialog");
      await expect.poll(() => dialog.getByTestId("fork-preview").textContent()).toContain("Runs next: Shout");
      expect(await dialog.getByTestId("fork-use-current").isChecked()).toBe(true);
      // The LLM finished before this checkpoint: the fork cannot run it, so it is not offered.
      expect(await dialog.getByTestId("fork-effect-reply").count()).toBe(0);
      await screenshot(page, "run-fork-dialog-en");
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByTestId("fork-start").click();
      await waitForStatus(page, "ok");
      expect(await nodeStatus(page, "upper")).toBe("ok");
      await page.getByTestId("trace-visit-upper").click();
      await expect.poll(() => page.getByTestId("visit-output").textContent()).toContain("HELLO FROM THE FAKE MODEL.");
      // The LLM's answer came from the checkpoint: no second call.
      expect(llm.requests.length).toBe(calls + 1);
    } finally {
      await context.close();
    }
  });

  it.each(["en", "vi"] as const)(
    "forks before an LLM node: its answer is reused, unless the edited state changes what it reads (%s)",
    async (lang) => {
      const text = {
        en: { reuses: "reuses 1 earlier result", stale: "reads message, which you changed" },
        vi: { reuses: "dùng lại 1 kết quả trước", stale: "đọc message, trường bạn đã sửa" },
      }[lang];
      const { context, page } = await openEditor(replyWorkflow(`Fork the model ${lang}`, llm.url), lang);
      try {
        const calls = await runOnceAndOpenReply(page);

        // Unchanged, the fork reuses the model's answer from the ledger.
        await page.getByTestId("visit-fork").click();
        let dialog = page.getByTestId("fork-dialog");
        const effect = dialog.getByTestId("fork-effect-reply");
        await expect.poll(() => effect.textContent()).toContain(text.reuses);
        expect(await effect.getByRole("checkbox").isChecked()).toBe(false);
        const parent = await runStatus(page).getAttribute("data-run-id");
        await dialog.getByTestId("fork-start").click();
        await waitForNextRun(page, parent, "ok");
        expect(await nodeStatus(page, "reply")).toBe("reused");
        expect(llm.requests.length).toBe(calls);

        // With the message edited, the answer read from the old message is flagged and runs again.
        await page.getByTestId("trace-visit-reply").click();
        await page.getByTestId("visit-fork").click();
        dialog = page.getByTestId("fork-dialog");
        const state = dialog.getByTestId("fork-state");
        const edited = { ...JSON.parse(await state.inputValue()), message: "a new question" };
        await state.fill(JSON.stringify(edited, null, 2));
        await expect.poll(() => dialog.getByTestId("fork-stale-reads").textContent()).toContain(text.stale);
        await expect.poll(() => dialog.getByTestId("fork-effect-reply").getByRole("checkbox").isChecked()).toBe(true);
        await screenshot(page, `run-fork-stale-${lang}`);
        const firstFork = await runStatus(page).getAttribute("data-run-id");
        await dialog.getByTestId("fork-start").click();
        await waitForNextRun(page, firstFork, "ok");
        expect(await nodeStatus(page, "reply")).toBe("ok");
        expect(llm.requests.length).toBe(calls + 1);
        expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain("a new question");
      } finally {
        await context.close();
      }
    },
  );

  it("reconnects a lost socket and follows the run from the last event it had, with no gap or repeat", async () => {
    const { context, page } = await openEditor(TRIAGE, "en");
    let connections = 0;
    // The page's socket goes through a proxy that drops the first connection after the first node finishes.
    await page.routeWebSocket(/\/ws\/run/, (socket) => {
      const server = socket.connectToServer();
      connections++;
      if (connections > 1) return;
      server.onMessage((message) => {
        socket.send(message);
        if (String(message).includes('"node_finished"')) {
          socket.close({ code: 4000, reason: "dropped" });
          server.close();
        }
      });
    });
    try {
      await page.getByTestId("run-panel-toggle").click();
      await page.getByLabel("message").fill("Where is my parcel?");
      await page.getByTestId("run-start").click();
      await waitForStatus(page, "ok");
      expect(connections).toBe(2);
      await page.getByTestId("run-tab-trace").click();
      // Classify, Urgent? and Draft reply, each once.
      expect(await page.getByTestId("trace-count").textContent()).toBe("3 node runs");
      for (const id of ["classify", "route", "draft"])
        expect(await page.getByTestId(`trace-visit-${id}`).count()).toBe(1);
      await page.getByTestId("trace-visit-draft").click();
      await expect
        .poll(() => page.getByTestId("visit-output").textContent())
        .toContain("we will get back to you soon.");
    } finally {
      await context.close();
    }
  });

  it("runs one node alone on a past step's state, pins its output, and the next run does not call it", async () => {
    const document = replyWorkflow("Pin the model", llm.url);
    const { context, page, workflowId } = await openEditor(document, "en");
    try {
      let calls = await runOnceAndOpenReply(page);
      // Run the LLM node alone on the state before its step: one more call, nothing upstream.
      await page.getByTestId("visit-run-alone").click();
      const dialog = page.getByTestId("node-run-dialog");
      await dialog.getByTestId("node-run-start").click();
      await expect.poll(() => dialog.getByTestId("node-run-result").getAttribute("data-status")).toBe("ok");
      expect(await dialog.getByTestId("node-run-output").textContent()).toContain("Hello from the fake model.");
      expect(llm.requests.length).toBe(++calls);
      expect(await seriousViolations(page)).toEqual([]);
      // Pin that output: the node shows it, and the next editor run uses it without calling the model.
      await dialog.getByTestId("node-run-pin").click();
      await page.keyboard.press("Escape");
      const unpinned = await runStatus(page).getAttribute("data-run-id");
      await page.getByTestId("run-start").click();
      await waitForNextRun(page, unpinned, "ok");
      expect(await nodeStatus(page, "reply")).toBe("pinned");
      expect(llm.requests.length).toBe(calls);
      const runs = await api<{ pinned_nodes: string[]; trigger: string }[]>(
        suite.studio,
        "GET",
        `/api/runs?workflow_id=${workflowId}`,
        {
          token: suite.token,
        },
      );
      expect(runs.body.data?.map((r) => r.pinned_nodes)).toEqual([["reply"], []]);
      // Unpinned, the model is called again.
      await page.getByTestId("run-tab-input").click();
      await page.getByTestId("pin-reply").getByRole("button").click();
      const pinned = await runStatus(page).getAttribute("data-run-id");
      await page.getByTestId("run-start").click();
      await waitForNextRun(page, pinned, "ok");
      expect(llm.requests.length).toBe(calls + 1);
    } finally {
      await context.close();
    }
  });

  it.each(["en", "vi"] as const)(
    "flags a pin whose node was deleted, and the run it would break is refused with the reason (%s)",
    async (lang) => {
      const document = replyWorkflow(`Pin left behind ${lang}`, llm.url);
      const workflow = await createWorkflow<{ id: string }>(suite.studio, suite.token, document);
      const { context, page } = await openContext(suite.browser, { lang });
      try {
        await storeSession(page, suite.studio, suite.token);
        // A pin kept in this browser for a node that has since been deleted (and one that still exists).
        await page.evaluate(
          ([key, pins]) => localStorage.setItem(key as string, pins as string),
          [`superstep.pins.${workflow.id}`, JSON.stringify({ reply: { answer: "pinned" }, gone: { answer: "old" } })],
        );
        await page.goto(`${suite.studio.url}/workflows/${workflow.id}`);
        await page.getByTestId("workflow-title").waitFor();
        expect(await page.getByTestId("rf__minimap").count()).toBe(1);
        await page.getByTestId("run-panel-toggle").click();
        // The canvas got shorter: the workflow that was centred in it stays in view, and the
        // minimap, which would cover it, is put away.
        await expect.poll(() => insideCanvas(page, "reply")).toBe(true);
        await expect.poll(() => page.getByTestId("rf__minimap").count()).toBe(0);
        const gone = page.getByTestId("pin-gone");
        await expect.poll(() => gone.textContent()).toContain(TEXT[lang].nodeGone);
        expect(await page.getByTestId("pin-reply").textContent()).not.toContain(TEXT[lang].nodeGone);
        const calls = llm.requests.length;
        await page.getByTestId("run-start").click();
        await expect.poll(() => page.getByTestId("run-panel").textContent()).toContain(TEXT[lang].pinGoneRefused);
        const runs = await api<unknown[]>(suite.studio, "GET", `/api/runs?workflow_id=${workflow.id}`, {
          token: suite.token,
        });
        expect(runs.body.data).toEqual([]);
        expect(llm.requests.length).toBe(calls);
        await screenshot(page, `run-pin-gone-${lang}`);
        // Unpinned, the run starts and uses the pin that is still valid.
        await gone.getByRole("button").click();
        await page.getByTestId("run-start").click();
        await waitForStatus(page, "ok");
        expect(await nodeStatus(page, "reply")).toBe("pinned");
        expect(llm.requests.length).toBe(calls);
      } finally {
        await context.close();
      }
    },
  );

  it.each(["en", "vi"] as const)(
    "shows a For each iteration's item beside its output, finds the failed one, and runs it again alone (%s)",
    async (lang) => {
      const document: Doc = {
        name: `Each item ${lang}`,
        state: [
          { name: "items", type: "list", default: [{ n: 1 }, { n: 2 }, { n: 3 }] },
          { name: "results", type: "list" },
          { name: "doubled", type: "number" },
          { name: "strict", type: "boolean", default: true },
        ],
        nodes: [
          { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: ["strict"] } },
          {
            id: "each",
            type: "for_each",
            position: { x: 250, y: 0 },
            data: { label: "Each item", items: "{{state.items}}", output_field: "results" },
          },
          {
            id: "double",
            type: "code",
            position: { x: 500, y: 100 },
            data: {
              label: "Double",
              language: "javascript",
              code: "function main(state, item, index) {\n  if (state.strict && item.n === 2) throw new Error('two is not allowed');\n  return { doubled: item.n * 2 };\n}",
              outputs: ["doubled"],
            },
          },
          { id: "end", type: "end", position: { x: 750, y: 0 }, data: {} },
        ],
        edges: [
          { id: "e1", source: "start", target: "each" },
          { id: "e2", source: "each", target: "double", label: "item" },
          { id: "e3", source: "each", target: "end", label: "done" },
        ],
      };
      const { context, page } = await openEditor(document, lang);
      try {
        await page.getByTestId("run-panel-toggle").click();
        await page.getByTestId("run-start").click();
        await waitForStatus(page, "error");
        await page.getByTestId("run-tab-trace").click();
        expect(await page.getByTestId("trace-visit-double").count()).toBe(3);
        // Only the failed iteration is left with the filter on; its item is its input.
        await page.getByTestId("trace-failed-only").check();
        expect(await page.getByTestId("trace-visit-double").count()).toBe(1);
        await page.getByTestId("trace-visit-double").click();
        await expect.poll(() => page.getByTestId("visit-item").textContent()).toContain('"n": 2');
        expect(await page.getByTestId("visit-error").textContent()).toContain("two is not allowed");
        // An iteration that went well shows its item and its output side by side.
        await page.getByTestId("trace-failed-only").uncheck();
        // The failed iteration, run again alone on an item fixed by hand.
        await page.getByTestId("visit-run-alone").click();
        const dialog = page.getByTestId("node-run-dialog");
        const item = dialog.getByTestId("node-run-item");
        expect(JSON.parse(await item.inputValue())).toEqual({ n: 2 });
        await dialog.getByTestId("node-run-start").click();
        await expect.poll(() => dialog.getByTestId("node-run-result").getAttribute("data-status")).toBe("error");
        await item.fill("not json");
        expect(await dialog.getByTestId("node-run-start").isDisabled()).toBe(true);
        await item.fill('{ "n": 21 }');
        await dialog.getByTestId("node-run-start").click();
        await expect.poll(() => dialog.getByTestId("node-run-result").getAttribute("data-status")).toBe("ok");
        expect(await dialog.getByTestId("node-run-output").textContent()).toContain('"doubled": 42');
        expect(await dialog.getByTestId("node-run-pin").count()).toBe(0);
        await screenshot(page, `run-iteration-alone-${lang}`);
        expect(await seriousViolations(page)).toEqual([]);
        await page.keyboard.press("Escape");
        // A run where every iteration goes well: each shows its own item beside its own output.
        await page.getByTestId("run-tab-input").click();
        // The checkbox shows the field's default (true) until it is changed.
        expect(await page.getByLabel("strict").isChecked()).toBe(true);
        await page.getByLabel("strict").uncheck();
        await page.getByTestId("run-start").click();
        await waitForStatus(page, "ok");
        await page.getByTestId("run-tab-trace").click();
        for (const [index, n] of [1, 2, 3].entries()) {
          await page.getByTestId("trace-visit-double").nth(index).click();
          await expect.poll(() => page.getByTestId("visit-item").textContent()).toContain(`"n": ${n}`);
          expect(await page.getByTestId("visit-output").textContent()).toContain(`"doubled": ${n * 2}`);
        }
        expect(await page.getByTestId("visit-pin").count()).toBe(0);
      } finally {
        await context.close();
      }
    },
  );
});
