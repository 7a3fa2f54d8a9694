// The settings forms are generated from the very JSON Schemas GET /api/node-types serves (the
// backend's catalog, imported from its source), and their inline checks agree with the backend's
// zod schemas on the values people type.
import { describe, expect, it } from "vitest";
import { NODE_DATA } from "../../../../../backend/src/engine/nodes/node-data.schema.js";
import { nodeTypeCatalog } from "../../../../../backend/src/engine/nodes/node-types.js";
import { namesStateField, pathInPatterns, stringEditor } from "./node-type-queries";
import { emptyValue, type FieldSpec, fieldProblem, fieldSpec, pickVariant, settingsForm } from "./schema-form";

const catalog = nodeTypeCatalog();
const formOf = (type: string) => {
  const info = catalog.find((entry) => entry.type === type);
  if (!info) throw new Error(type);
  return settingsForm(info.data_schema);
};
const property = (spec: FieldSpec, name: string) => {
  if (spec.kind !== "object") throw new Error(`not an object: ${spec.kind}`);
  const found = spec.properties.find((p) => p.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};

describe("JSON Schema to form fields", () => {
  it("reads strings, numbers, enums, booleans and required marks from the LLM schema", () => {
    const llm = formOf("llm");
    expect(property(llm, "model")).toEqual({
      name: "model",
      required: true,
      spec: { kind: "string", minLength: 1, maxLength: 200 },
    });
    expect(property(llm, "provider")).toEqual({
      name: "provider",
      required: false,
      spec: { kind: "enum", options: ["openai", "anthropic"], default: "openai" },
    });
    expect(property(llm, "temperature").spec).toEqual({ kind: "number", integer: false, minimum: 0, maximum: 2 });
    expect(property(llm, "max_tokens").spec).toMatchObject({ kind: "number", integer: true });
    expect(property(llm, "base_url").spec).toMatchObject({ kind: "string", format: "uri" });
    // An object of anything is edited as JSON.
    expect(property(llm, "json_schema").spec.kind).toBe("json");
  });

  it("leaves the node's label out of the form (it is renamed on its own)", () => {
    for (const entry of catalog) {
      const form = settingsForm(entry.data_schema);
      const objects = form.kind === "variants" ? form.variants.map((v) => v.spec) : [form];
      for (const object of objects) {
        expect(object.kind).toBe("object");
        if (object.kind === "object") expect(object.properties.map((p) => p.name)).not.toContain("label");
      }
    }
  });

  it("reads nested lists of objects (Condition rules and their conditions)", () => {
    const rules = property(formOf("condition"), "rules").spec;
    expect(rules).toMatchObject({ kind: "list", maxItems: 50 });
    if (rules.kind !== "list") throw new Error();
    const conditions = property(rules.item, "conditions");
    expect(conditions.required).toBe(true);
    expect(conditions.spec).toMatchObject({ kind: "list", minItems: 1 });
    if (conditions.spec.kind !== "list") throw new Error();
    expect(property(conditions.spec.item, "operator").spec).toMatchObject({ kind: "enum" });
    expect(property(conditions.spec.item, "value").spec.kind).toBe("json");
    expect(property(rules.item, "combinator").spec).toMatchObject({ kind: "enum", default: "and" });
  });

  it("reads records with typed values as key/value lists", () => {
    expect(property(formOf("decision"), "label_descriptions").spec).toEqual({
      kind: "record",
      default: {},
      value: { kind: "string", maxLength: 2000 },
    });
    expect(property(formOf("subgraph"), "output").spec).toMatchObject({
      kind: "record",
      keyPattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$",
      value: { kind: "string" },
    });
    expect(property(formOf("subgraph"), "input").spec.kind).toBe("json");
  });

  it("reads the Tool's kinds as variants told apart by `kind`", () => {
    const tool = formOf("tool");
    expect(tool.kind).toBe("variants");
    if (tool.kind !== "variants") throw new Error();
    expect(tool.discriminator).toBe("kind");
    expect(tool.variants.map((v) => v.value)).toEqual(["http", "python"]);
    expect(pickVariant(tool, { kind: "python", code: "x" }).value).toBe("python");
    expect(pickVariant(tool, {}).value).toBe("http");
    expect(emptyValue(tool.variants[1]?.spec as FieldSpec)).toEqual({ kind: "python", code: "", output_field: "" });
  });

  it("keeps the schema's description as help and falls back to JSON for what it does not know", () => {
    expect(fieldSpec({ type: "string", description: "Shown under the field" })).toEqual({
      kind: "string",
      description: "Shown under the field",
    });
    expect(fieldSpec({ anyOf: [{ type: "string" }, { type: "number" }] }).kind).toBe("json");
    expect(fieldSpec({ oneOf: [{ type: "string" }, { type: "number" }] }).kind).toBe("json");
  });

  it("chooses code, template and plain editors from the node type's facts", () => {
    const info = (type: string) => catalog.find((e) => e.type === type) as (typeof catalog)[number];
    expect(stringEditor(info("code"), { language: "python" }, ["code"])).toBe("python");
    expect(stringEditor(info("code"), { language: "javascript" }, ["code"])).toBe("javascript");
    expect(stringEditor(info("tool"), { kind: "python" }, ["code"])).toBe("python");
    expect(stringEditor(info("llm"), {}, ["prompt"])).toBe("template");
    expect(stringEditor(info("tool"), {}, ["headers", "Authorization"])).toBe("template");
    expect(stringEditor(info("llm"), {}, ["model"])).toBe("text");
    expect(pathInPatterns(["rules", 2, "conditions", 0, "value"], ["rules.*.conditions.*.value"])).toBe(true);
    expect(pathInPatterns(["rules", 2, "label"], ["rules.*.conditions.*.value"])).toBe(false);
    expect(namesStateField(info("llm"), ["output_field"])).toBe(true);
    expect(namesStateField(info("code"), ["outputs", 0])).toBe(true);
    expect(namesStateField(info("code"), ["outputs"])).toBe(false);
  });
});

describe("inline checks agree with the backend's schemas", () => {
  // Each case: node type, the setting, a value, whether zod accepts a document with it.
  const base: Record<string, Record<string, unknown>> = {
    llm: { model: "m", prompt: "p", output_field: "answer" },
    tool: { kind: "http", url: "https://example.com", output_field: "r" },
    for_each: { items: "{{state.list}}", output_field: "out" },
    human: { message: "m", output_field: "reply" },
  };
  const cases: [string, string, unknown][] = [
    ["llm", "model", ""],
    ["llm", "model", "gpt-4o-mini"],
    ["llm", "model", "x".repeat(201)],
    ["llm", "output_field", "1answer"],
    ["llm", "output_field", "câu_trả_lời"],
    ["llm", "output_field", "answer_1"],
    ["llm", "temperature", 2.5],
    ["llm", "temperature", 0.7],
    ["llm", "max_tokens", 1.5],
    ["llm", "max_tokens", 0],
    ["llm", "max_tokens", 1000],
    ["llm", "base_url", "not a url"],
    ["llm", "base_url", "http://127.0.0.1:9000/v1"],
    ["llm", "prompt", "Xin chào 🚀 {{state.q}}"],
    ["llm", "prompt", "é".repeat(10_000)],
    ["for_each", "items", "state.list"],
    ["for_each", "items", "{{ state.docs }}"],
    ["for_each", "max_items", 10_001],
    ["human", "timeout_seconds", 0],
  ];
  for (const [type, name, value] of cases) {
    it(`${type}.${name} = ${JSON.stringify(value).slice(0, 40)}`, () => {
      const schema = NODE_DATA[type as keyof typeof NODE_DATA];
      const accepted = schema.safeParse({ ...base[type], [name]: value }).success;
      const spec = property(formOf(type), name);
      const problem = fieldProblem(spec.spec, value, spec.required);
      expect(problem === undefined).toBe(accepted);
    });
  }

  it("flags a missing required setting and not a missing optional one", () => {
    const llm = formOf("llm");
    expect(fieldProblem(property(llm, "prompt").spec, undefined, true)).toEqual({ code: "required" });
    expect(fieldProblem(property(llm, "system").spec, undefined, false)).toBeUndefined();
  });

  it("counts list members against the schema's bounds", () => {
    const start = property(formOf("start"), "inputs").spec;
    expect(fieldProblem(start, Array(201).fill("a"), false)).toEqual({ code: "tooManyItems", params: { max: 200 } });
    expect(fieldProblem(start, ["a"], false)).toBeUndefined();
  });
});
