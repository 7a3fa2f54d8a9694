import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE_SAMPLES } from "../../test/node-samples.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { NODE_DATA } from "../engine/nodes/node-data.schema.js";
import { NODE_TYPES } from "../schemas/workflow.schema.js";

interface NodeTypeInfo {
  type: string;
  name_key: string;
  description_key: string;
  data_schema: Record<string, unknown>;
  outputs: { kind: string; labels?: string[]; paths?: string[]; suggestions?: string };
  input: boolean;
  side_effect: boolean;
  template_settings: string[];
  field_settings: { path: string; form: string; writes: boolean }[];
}

describe("GET /api/node-types", () => {
  let studio: TestStudio;
  let owner: Session;
  let types: NodeTypeInfo[];
  beforeAll(async () => {
    studio = await startTestStudio();
    owner = await setupOwner(studio);
    const response = await studio.app.inject({ method: "GET", url: "/api/node-types", headers: owner.auth });
    expect(response.statusCode).toBe(200);
    types = response.json().data;
  });
  afterAll(() => studio.close());

  it("needs a signed-in caller", async () => {
    const response = await studio.app.inject({ method: "GET", url: "/api/node-types" });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe("AUTH_REQUIRED");
  });

  it("lists every node type once, with its locale keys, outputs and reference settings", () => {
    expect(types.map((t) => t.type)).toEqual([...NODE_TYPES]);
    const byType = Object.fromEntries(types.map((t) => [t.type, t]));
    expect(byType.llm?.description_key).toBe("editor.nodeTypes.llm.description");
    expect(byType.llm?.name_key).toBe("editor.nodeTypes.llm.name");
    expect(byType.llm?.template_settings).toEqual(["system", "prompt"]);
    expect(byType.llm?.field_settings).toEqual([{ path: "output_field", form: "name", writes: true }]);
    expect(byType.llm?.side_effect).toBe(true);
    expect(byType.condition?.outputs).toEqual({ kind: "labels", paths: ["rules.*.label", "default_label"] });
    expect(byType.decision?.outputs).toEqual({ kind: "free", suggestions: "label_descriptions" });
    expect(byType.for_each?.outputs).toEqual({ kind: "fixed", labels: ["item", "done"] });
    expect(byType.end?.outputs).toEqual({ kind: "none" });
    expect(byType.start?.input).toBe(false);
    expect(byType.join?.side_effect).toBe(false);
  });

  it("serves settings schemas that accept and refuse the same settings as the validator", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const schemas = Object.fromEntries(types.map((t) => [t.type, ajv.compile(t.data_schema)]));
    const cases: { type: (typeof NODE_TYPES)[number]; data: unknown }[] = [
      ...NODE_SAMPLES,
      { type: "llm", data: { model: "m", prompt: "p" } }, // no output_field
      { type: "llm", data: { model: "m", prompt: "p", output_field: "a", colour: "red" } }, // unknown setting
      { type: "llm", data: { model: "m", prompt: "p", output_field: "a", temperature: 3 } },
      { type: "tool", data: { kind: "ftp", url: "x", output_field: "a" } },
      { type: "tool", data: { kind: "python", url: "x", output_field: "a" } },
      { type: "condition", data: { rules: [{ label: "a", conditions: [] }], default_label: "b" } },
      { type: "condition", data: { rules: [], default_label: "b" } },
      { type: "for_each", data: { items: "state.list", output_field: "a" } },
      { type: "human", data: { message: "m", output_field: "a", fields: [{ name: "x", type: "date" }] } },
      { type: "subgraph", data: { workflow_id: "w", version: 0 } },
      { type: "start", data: { inputs: ["1bad"] } },
      { type: "join", data: { label: "" } },
    ];
    let refused = 0;
    for (const { type, data } of cases) {
      const zodAccepts = NODE_DATA[type].safeParse(data).success;
      expect(schemas[type]?.(data), `${type} ${JSON.stringify(data)}`).toBe(zodAccepts);
      if (!zodAccepts) refused++;
    }
    expect(refused).toBe(11);
  });

  it("marks settings that have a default as optional and carries the default", () => {
    const tool = types.find((t) => t.type === "tool")!.data_schema as {
      oneOf: { properties: Record<string, { default?: unknown }>; required: string[] }[];
    };
    const http = tool.oneOf[0]!;
    expect(http.properties.method?.default).toBe("GET");
    expect(http.required).not.toContain("method");
    expect(http.required).toEqual(expect.arrayContaining(["kind", "url", "output_field"]));
  });
});
