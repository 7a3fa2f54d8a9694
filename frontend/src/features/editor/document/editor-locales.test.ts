// Everything the document layer says has a message in both languages: its error codes, the
// labels of its history entries (rendered, nesting and plurals included), the node types the API
// names and the reference problems.
import i18next from "i18next";
import { beforeAll, describe, expect, it } from "vitest";
import { nodeTypeCatalog } from "../../../../../backend/src/engine/nodes/node-types.js";
import en from "../../../locales/en.json";
import vi from "../../../locales/vi.json";
import { NODE_TYPES } from "./backend-shared.js";
import { COMMANDS, loadedStore } from "./document.fixtures.js";
import { EDITOR_ERROR_CODES } from "./document-errors.js";

const LANGUAGES = { en, vi } as const;
const i18n = i18next.createInstance();

beforeAll(async () => {
  await i18n.init({
    resources: { en: { translation: en }, vi: { translation: vi } },
    lng: "en",
    interpolation: { escapeValue: false },
  });
});

function rendered(lang: keyof typeof LANGUAGES, key: string, params: Record<string, unknown> = {}): string {
  const text = i18n.getFixedT(lang)(key, params);
  expect(text, `${lang} ${key}`).not.toBe(key);
  expect(text, `${lang} ${key}`).not.toMatch(/\{\{|\$t\(|undefined/);
  return text;
}

describe.each(Object.keys(LANGUAGES) as (keyof typeof LANGUAGES)[])("editor texts in %s", (lang) => {
  it("translate every error code the document layer answers with", () => {
    const params = { type: "webhook", id: "n1", name: "f", max: 100, path: "nodes.0", detail: "x", line: 1, column: 2 };
    for (const code of EDITOR_ERROR_CODES) rendered(lang, `editor.errors.${code}`, params);
  });

  it("label every history entry a command makes", () => {
    const store = loadedStore();
    const labels: string[] = [];
    for (const [, command] of COMMANDS) {
      const fresh = loadedStore();
      fresh.getState().dispatch(command);
      const entry = fresh.getState().history.past[0]!;
      labels.push(rendered(lang, entry.labelKey, entry.params));
    }
    store.getState().dispatch({ type: "remove", nodeIds: ["draft"], cut: true });
    store.getState().dispatch({ type: "add-note", note: { position: { x: 0, y: 0 } } });
    store.getState().dispatch({ type: "update-note", id: "note_1", changes: { text: "x" } });
    for (const reason of ["restore", "merge", "import"] as const)
      store.getState().dispatch({ type: "replace-document", document: { name: reason }, reason });
    for (const entry of store.getState().history.past) labels.push(rendered(lang, entry.labelKey, entry.params));
    expect(labels).toHaveLength(COMMANDS.length + 6);
    if (lang === "en") {
      expect(i18n.getFixedT("en")("editor.history.addNode", { type: "for_each" })).toBe("Add For each");
      expect(i18n.getFixedT("en")("editor.history.remove", { count: 1 })).toBe("Delete 1 item");
      expect(i18n.getFixedT("en")("editor.history.remove", { count: 3 })).toBe("Delete 3 items");
    }
  });

  it("name and describe every node type, under the keys the API serves", () => {
    expect(nodeTypeCatalog().map((t) => t.type)).toEqual([...NODE_TYPES]);
    for (const info of nodeTypeCatalog()) {
      rendered(lang, info.name_key);
      rendered(lang, info.description_key);
    }
  });

  it("explain every reference problem, with the suggestion", () => {
    for (const code of ["STATE_REFERENCE_UNKNOWN", "TEMPLATE_INVALID", "ITEM_REFERENCE_OUTSIDE_FOR_EACH"])
      rendered(lang, `editor.references.${code}`, { name: "sumary" });
    expect(rendered(lang, "editor.references.suggestion", { suggestion: "summary" })).toContain("summary");
  });
});
