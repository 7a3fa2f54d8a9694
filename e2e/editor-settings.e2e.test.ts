// Node settings and the state schema in a browser, against the real studio: every node type picked
// and configured through the form generated from GET /api/node-types, the document checked in the
// JSON panel; {{state.x}} completion with types; a misspelt reference underlined with a "did you
// mean"; renaming a state field carries its references; find usages focuses the node; parallel
// writes of a replace field flagged; emoji, Vietnamese and a 10,000-character value; axe-core.
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  createWorkflow,
  jsonViewText,
  type Lang,
  openContext,
  screenshot,
  seriousViolations,
  storeSession,
} from "./studio.js";
import { studioSuite } from "./studio-suite.js";

interface Node {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}
interface Doc {
  name: string;
  state: { name: string; type: string; reducer?: string; default?: unknown }[];
  nodes: Node[];
  edges: { id: string; source: string; target: string; label?: string }[];
}

const at = (i: number) => ({ x: i * 200, y: 0 });
const node = (id: string, type: string, i: number, data: Record<string, unknown> = {}): Node => ({
  id,
  type,
  position: at(i),
  data,
});

/** Every node type, with the least the API needs; the test fills the rest through the forms. */
function everyType(name: string): Doc {
  return {
    name,
    state: [
      { name: "question", type: "string" },
      { name: "answer", type: "string" },
      { name: "documents", type: "list" },
      { name: "notes", type: "list", reducer: "append" },
    ],
    nodes: [
      node("start", "start", 0),
      node("ask", "llm", 1, { provider: "openai", model: "gpt-4o-mini", prompt: "", output_field: "" }),
      node("fetch", "tool", 2, { kind: "http", method: "GET", url: "", output_field: "" }),
      node("shape", "code", 3, { language: "javascript", code: "function main(state) {\n  return {};\n}\n" }),
      node("route", "condition", 4, { rules: [], default_label: "else" }),
      node("pick", "decision", 5, { provider: "openai", model: "gpt-4o-mini", prompt: "" }),
      node("each", "for_each", 6, { items: "", output_field: "" }),
      node("gather", "join", 7),
      node("review", "human", 8, { message: "", fields: [], output_field: "" }),
      node("mail", "send_email", 9, { to: "", subject: "", body: "" }),
      node("child", "subgraph", 10, { workflow_id: "", version: 1 }),
      node("end", "end", 11),
    ],
    edges: [{ id: "e1", source: "start", target: "ask" }],
  };
}

const TEXT = {
  en: {
    hint: "Select a node on the canvas, or pick one here, to see its settings.",
    required: "This setting is required.",
    identifier: "Use letters, digits and “_”, not starting with a digit (at most 64).",
    model: "Model",
    outputField: "Output field",
    didYouMean: "Did you mean “question”?",
    undeclared: "“answr” is not a declared state field. Did you mean “answer”?",
    unknown: "“questoin” is not a declared state field.",
    parallel: "ask and pick can run in the same step",
    stateTitle: "State fields",
    branchName: "Branches: name #1",
  },
  vi: {
    hint: "Chọn một nút trên khung vẽ, hoặc chọn ở đây, để xem phần thiết lập của nút.",
    required: "Bắt buộc phải điền mục này.",
    identifier: "Chỉ dùng chữ cái không dấu, chữ số và “_”, không bắt đầu bằng chữ số (tối đa 64 ký tự).",
    model: "Mô hình",
    outputField: "Trường kết quả",
    didYouMean: "Có phải ý bạn là “question”?",
    undeclared: "“answr” không phải trường state đã khai báo. Có phải ý bạn là “answer”?",
    unknown: "“questoin” không phải trường state đã khai báo.",
    parallel: "ask và pick có thể chạy cùng một bước",
    stateTitle: "Các trường trạng thái",
    branchName: "Các nhánh: tên #1",
  },
} as const;

describe("node settings and state fields in a browser", () => {
  const suite = studioSuite();

  async function create(document: Doc): Promise<string> {
    return (await createWorkflow(suite.studio, suite.token, document)).id;
  }

  async function openEditor(id: string, lang: Lang, theme: "light" | "dark" = "light") {
    const opened = await openContext(suite.browser, { lang, theme });
    const logged: string[] = [];
    opened.page.on("console", (message) => {
      if (message.type() === "error") logged.push(message.text());
    });
    await storeSession(opened.page, suite.studio, suite.token);
    await opened.page.goto(`${suite.studio.url}/workflows/${id}`);
    await opened.page
      .getByTestId("workflow-title")
      .waitFor()
      .catch(async (error: unknown) => {
        const body = await opened.page.locator("body").textContent();
        throw new Error(
          `the editor did not open: ${[...opened.errors, ...logged].join("; ").slice(0, 1000)} | ${(body ?? "").slice(0, 300)}`,
          { cause: error },
        );
      });
    return opened;
  }

  async function shownDocument(page: Page): Promise<Doc> {
    const text = await jsonViewText(page);
    await page.getByTestId("panel-tab-settings").click();
    return JSON.parse(text) as Doc;
  }

  async function pick(page: Page, nodeId: string): Promise<Locator> {
    if (await page.getByTestId("settings-deselect").isVisible()) await page.getByTestId("settings-deselect").click();
    await page.getByTestId("settings-node-picker").selectOption(nodeId);
    const panel = page.getByTestId("node-settings");
    await expect.poll(() => panel.getAttribute("data-node-id")).toBe(nodeId);
    return panel;
  }

  /** Types into a setting, whatever its control: a CodeMirror editor, a text field or a select. */
  async function set(page: Page, path: string, value: string | boolean): Promise<void> {
    const field = page.getByTestId(`setting-${path}`);
    // A code editor shows its text in a read-only stand-in for a frame, then CodeMirror.
    await field.locator(".cm-content, input, select, textarea:not([readonly])").first().waitFor();
    const code = field.locator(".cm-content").first();
    if (typeof value === "boolean") {
      await field.locator("input[type=checkbox]").setChecked(value);
    } else if (await code.count()) {
      await code.fill(value);
    } else if (await field.locator("select").count()) {
      await field.locator("select").first().selectOption(value);
    } else {
      await field.locator("input, textarea").first().fill(value);
    }
    // Leaving the field ends the undo group (a code editor is left by a click: Tab indents there).
    if (path === "code") await page.getByTestId("node-settings").locator("h2").click();
    else await page.keyboard.press("Tab");
  }

  for (const lang of ["en", "vi"] as const) {
    it(`configures every node type through its form and the document follows (${lang})`, async () => {
      const id = await create(everyType(`Mọi loại nút 🚀 ${lang}`));
      const { context, page, errors } = await openEditor(id, lang, lang === "en" ? "light" : "dark");
      await page.getByTestId("panel-tab-settings").click();
      expect(await page.getByTestId("settings-hint").textContent()).toBe(TEXT[lang].hint);

      const expected = everyType(`Mọi loại nút 🚀 ${lang}`);
      const data = (nodeId: string) => (expected.nodes.find((n) => n.id === nodeId) as Node).data;
      const long = `${"Xin chào thế giới 🚀 ".repeat(500)}`.slice(0, 10_000);

      // Start and End: lists of field names.
      await pick(page, "start");
      await page.getByTestId("setting-inputs-add").click();
      await set(page, "inputs.0", "question");
      data("start").inputs = ["question"];
      await pick(page, "end");
      await page.getByTestId("setting-outputs-add").click();
      await set(page, "outputs.0", "answer");
      data("end").outputs = ["answer"];

      // LLM: label, enum, number, template, state field name; a required setting left empty is flagged.
      const llm = await pick(page, "ask");
      await page.getByTestId("settings-label").fill("Hỏi đáp 🤖");
      await set(page, "provider", "anthropic");
      await set(page, "temperature", "0.5");
      await set(page, "model", "");
      expect(await llm.getByTestId("setting-model").getByTestId("setting-error").textContent()).toBe(
        TEXT[lang].required,
      );
      expect(await llm.getByTestId("setting-model").locator("label").first().textContent()).toContain(TEXT[lang].model);
      await set(page, "model", "claude-sonnet");
      await set(page, "prompt", "Trả lời câu hỏi: {{state.question}} 🙂");
      await set(page, "output_field", "1answer");
      expect(await llm.getByTestId("setting-output_field").getByTestId("setting-error").textContent()).toBe(
        TEXT[lang].identifier,
      );
      // A field name that is not declared: the validator's message, with the nearest declared name.
      await set(page, "output_field", "answr");
      expect(await llm.getByTestId("setting-output_field").getByTestId("setting-error").textContent()).toBe(
        TEXT[lang].undeclared,
      );
      await set(page, "output_field", "answer");
      expect(await llm.getByTestId("setting-error").count()).toBe(0);
      Object.assign(data("ask"), {
        label: "Hỏi đáp 🤖",
        provider: "anthropic",
        model: "claude-sonnet",
        prompt: "Trả lời câu hỏi: {{state.question}} 🙂",
        output_field: "answer",
        temperature: 0.5,
      });
      await screenshot(page, `settings-llm-${lang}`);
      expect(await seriousViolations(page)).toEqual([]);

      // Tool: switching kind to Python starts from the Python tool's settings.
      await pick(page, "fetch");
      await set(page, "kind", "python");
      await set(page, "code", "def main(state):\n    return {}");
      await set(page, "output_field", "answer");
      expect(await page.getByTestId("setting-code-editor").getAttribute("data-language")).toBe("python");
      expected.nodes[2] = {
        ...(expected.nodes[2] as Node),
        data: { kind: "python", code: "def main(state):\n    return {}", output_field: "answer" },
      };

      // Code: the code editor follows the language.
      await pick(page, "shape");
      await set(page, "language", "python");
      expect(await page.getByTestId("setting-code-editor").getAttribute("data-language")).toBe("python");
      await set(page, "code", "def main(state):\n    return {'answer': 'đã xong'}");
      await page.getByTestId("setting-outputs-add").click();
      await set(page, "outputs.0", "answer");
      Object.assign(data("shape"), {
        language: "python",
        code: "def main(state):\n    return {'answer': 'đã xong'}",
        outputs: ["answer"],
      });

      // Condition: nested lists of objects.
      await pick(page, "route");
      await page.getByTestId("setting-rules-add").click();
      await set(page, "rules.0.label", "khẩn cấp");
      await page.getByTestId("setting-rules.0.conditions-add").click();
      await set(page, "rules.0.conditions.0.field", "question");
      await set(page, "rules.0.conditions.0.operator", "contains");
      await set(page, "rules.0.conditions.0.value", '"gấp"');
      await set(page, "default_label", "bình thường");
      Object.assign(data("route"), {
        rules: [
          // A new member starts with its required settings only.
          { label: "khẩn cấp", conditions: [{ field: "question", operator: "contains", value: "gấp" }] },
        ],
        default_label: "bình thường",
      });

      // Decision: a record of labels.
      await pick(page, "pick");
      await set(page, "prompt", "Chọn nhánh cho {{state.question}}");
      await page.getByTestId("setting-label_descriptions-add").click();
      await set(page, "label_descriptions.key_1", "Câu hỏi về hoá đơn 🧾");
      // The entry's name is renamed when its field is left.
      await page.getByRole("textbox", { name: TEXT[lang].branchName }).fill("hoá_đơn");
      await page.keyboard.press("Tab");
      await page.getByTestId("setting-label_descriptions.hoá_đơn").waitFor();
      Object.assign(data("pick"), {
        prompt: "Chọn nhánh cho {{state.question}}",
        label_descriptions: { hoá_đơn: "Câu hỏi về hoá đơn 🧾" },
      });

      // For each, Join, Human, Send email, Subgraph.
      await pick(page, "each");
      await set(page, "items", "{{state.documents}}");
      await set(page, "output_field", "notes");
      await set(page, "max_items", "50");
      Object.assign(data("each"), { items: "{{state.documents}}", output_field: "notes", max_items: 50 });
      await pick(page, "gather");
      await set(page, "description", "Gom kết quả");
      data("gather").description = "Gom kết quả";
      await pick(page, "review");
      await set(page, "message", "Duyệt giúp: {{state.answer}}");
      await set(page, "output_field", "answer");
      await page.getByTestId("setting-fields-add").click();
      await set(page, "fields.0.name", "approved");
      await set(page, "fields.0.type", "boolean");
      Object.assign(data("review"), {
        message: "Duyệt giúp: {{state.answer}}",
        output_field: "answer",
        fields: [{ name: "approved", type: "boolean" }],
      });
      await pick(page, "mail");
      await set(page, "to", "ngoc@example.com");
      await set(page, "subject", "Kết quả 🚀");
      await set(page, "body", long);
      await set(page, "html", true);
      Object.assign(data("mail"), { to: "ngoc@example.com", subject: "Kết quả 🚀", body: long, html: true });
      await pick(page, "child");
      await set(page, "workflow_id", "wf_con");
      await set(page, "version", "3");
      Object.assign(data("child"), { workflow_id: "wf_con", version: 3 });

      const shown = await shownDocument(page);
      expect(shown).toEqual(expected);
      expect(((shown.nodes.find((n) => n.id === "mail") as Node).data.body as string).length).toBe(10_000);
      await pick(page, "mail");
      await screenshot(page, `settings-long-value-${lang}`);
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  for (const lang of ["en", "vi"] as const) {
    it(`completes state fields with their types and underlines a misspelt reference (${lang})`, async () => {
      const id = await create(everyType(`Gợi ý ${lang}`));
      const { context, page, errors } = await openEditor(id, lang, lang === "en" ? "dark" : "light");
      await page.getByTestId("panel-tab-settings").click();
      await pick(page, "ask");
      const prompt = page.getByTestId("setting-prompt-editor").locator(".cm-content");
      await prompt.click();
      await page.keyboard.type("Câu hỏi: {{state.");
      const list = page.locator(".cm-tooltip-autocomplete");
      await list.waitFor();
      const options = await list.locator("li").allTextContents();
      expect(options.sort()).toEqual(["answerstring", "documentslist", "noteslist · append", "questionstring"]);
      await screenshot(page, `settings-completion-${lang}`);
      await list.getByText("question", { exact: true }).click();
      await expect.poll(() => prompt.textContent()).toBe("Câu hỏi: {{state.question}}");

      await page.keyboard.type(" và {{state.questoin");
      await expect.poll(() => prompt.textContent()).toBe("Câu hỏi: {{state.question}} và {{state.questoin}}");
      const underlined = page.locator(".cm-lintRange-error");
      await expect.poll(() => underlined.allTextContents()).toEqual(["{{state.questoin}}"]);
      await underlined.hover();
      const tooltip = page.locator(".cm-tooltip-lint");
      await tooltip.waitFor();
      expect(await tooltip.textContent()).toContain(TEXT[lang].unknown);
      expect(await tooltip.textContent()).toContain(TEXT[lang].didYouMean);
      await screenshot(page, `settings-misspelt-${lang}`);
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  for (const lang of ["en", "vi"] as const) {
    it(`edits state fields: add, rename with references, find usages, parallel writes (${lang})`, async () => {
      const document = everyType(`Trạng thái ${lang}`);
      Object.assign((document.nodes[1] as Node).data, { prompt: "Hỏi {{state.question}} 🚀", output_field: "answer" });
      Object.assign((document.nodes[5] as Node).data, { prompt: "{{ state.question }}?", output_field: "answer" });
      Object.assign((document.nodes[4] as Node).data, {
        rules: [{ label: "x", conditions: [{ field: "question", operator: "is_not_empty" }] }],
      });
      // ask and pick both start right after Start and write `answer` (replace).
      document.edges = [
        { id: "e1", source: "start", target: "ask" },
        { id: "e2", source: "start", target: "pick" },
      ];
      const id = await create(document);
      const { context, page, errors } = await openEditor(id, lang, lang === "en" ? "light" : "dark");
      await page.getByTestId("panel-tab-state").click();
      const panel = page.getByTestId("state-schema");
      expect(await panel.getByRole("heading", { level: 2 }).textContent()).toBe(TEXT[lang].stateTitle);

      // Parallel writes of `answer` are flagged, and go away with a reducer that merges them.
      const answer = panel.locator('[data-testid="state-field"][data-field="answer"]');
      await answer.getByTestId("parallel-write").waitFor();
      expect(await answer.getByTestId("parallel-write").textContent()).toContain(TEXT[lang].parallel);
      await screenshot(page, `state-parallel-${lang}`);
      expect(await seriousViolations(page)).toEqual([]);

      // Find usages of `question`: the LLM, the Decision and the Condition; a click focuses the node.
      const question = panel.locator('[data-testid="state-field"][data-field="question"]');
      await question.getByTestId("state-field-usages").click();
      const usages = question.getByTestId("state-usage");
      expect(await usages.evaluateAll((els) => els.map((e) => e.getAttribute("data-node-id")))).toEqual([
        "ask",
        "route",
        "pick",
      ]);

      // Rename question → câu_hỏi is refused (not an identifier); → query renames every reference.
      await question.getByTestId("state-field-edit").click();
      await screenshot(page, `state-edit-${lang}`);
      expect(await seriousViolations(page)).toEqual([]);
      await question.getByTestId("state-field-rename-input").fill("câu_hỏi");
      await question.getByTestId("state-field-rename").click();
      await question.getByRole("status").first().waitFor();
      await question.getByTestId("state-field-rename-input").fill("query");
      await question.getByTestId("state-field-rename").click();
      await panel.locator('[data-testid="state-field"][data-field="query"]').waitFor();

      // The reducer of `answer` → append: the flag goes.
      await answer.getByTestId("state-field-edit").click();
      await answer.getByTestId("state-field-reducer").selectOption("append");
      await expect.poll(() => answer.getByTestId("parallel-write").count()).toBe(0);

      // A new field with emoji in its description is refused a Vietnamese name, accepted an identifier.
      await panel.getByTestId("state-add-name").fill("tóm_tắt");
      await panel.getByTestId("state-add-submit").click();
      await panel.getByTestId("state-add").getByRole("status").waitFor();
      await panel.getByTestId("state-add-name").fill("summary");
      await panel.getByTestId("state-add-type").selectOption("object");
      await panel.getByTestId("state-add-reducer").selectOption("merge");
      await panel.getByTestId("state-add-submit").click();
      const summary = panel.locator('[data-testid="state-field"][data-field="summary"]');
      await summary.getByTestId("state-field-edit").click();
      await summary.getByTestId("state-field-default").fill('{"ghi_chú": "✅"}');

      const shown = await shownDocument(page);
      expect(shown.state).toEqual([
        { name: "query", type: "string" },
        { name: "answer", type: "string", reducer: "append" },
        { name: "documents", type: "list" },
        { name: "notes", type: "list", reducer: "append" },
        { name: "summary", type: "object", reducer: "merge", default: { ghi_chú: "✅" } },
      ]);
      const dataOf = (nodeId: string) => (shown.nodes.find((n) => n.id === nodeId) as Node).data;
      expect(dataOf("ask").prompt).toBe("Hỏi {{state.query}} 🚀");
      expect(dataOf("pick").prompt).toBe("{{ state.query }}?");
      expect(dataOf("route").rules).toEqual([
        { label: "x", conditions: [{ field: "query", operator: "is_not_empty" }] },
      ]);

      // A usage click opens the node's settings.
      await page.getByTestId("panel-tab-state").click();
      const query = panel.locator('[data-testid="state-field"][data-field="query"]');
      await query.getByTestId("state-field-usages").click();
      await query.locator('[data-testid="state-usage"][data-node-id="pick"]').click();
      await expect.poll(() => page.getByTestId("node-settings").getAttribute("data-node-id")).toBe("pick");
      expect(await page.getByTestId("setting-prompt-editor").locator(".cm-content").textContent()).toBe(
        "{{ state.query }}?",
      );
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
