// State field names that every JavaScript object already has would collide with them in the
// graph's channel table; they are refused before a run, never crash one.
import { describe, expect, it } from "vitest";
import { collect, edge, engineConfig } from "../../../test/engine-harness.js";
import { runStream } from "../runtime/runtime.js";
import { validateWorkflow } from "./validator.js";

const BUILT_IN = Object.getOwnPropertyNames(Object.prototype).filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));

const environment = {
  codeMode: "wasm" as const,
  providers: {
    openai: { configured: true, variable: "OPENAI_API_KEY" },
    anthropic: { configured: true, variable: "ANTHROPIC_API_KEY" },
  },
  serverKeyNeeded: () => false,
  smtpConfigured: true,
  maxSubgraphDepth: 3,
  resolveWorkflow: async () => undefined,
  credentialType: async () => undefined,
};

describe("state field names", () => {
  it("covers the names of Object.prototype", () => {
    expect(BUILT_IN).toEqual(expect.arrayContaining(["toString", "valueOf", "hasOwnProperty", "isPrototypeOf"]));
  });

  it.each(BUILT_IN)("refuses %s as a field name", async (name) => {
    const result = await validateWorkflow(
      { name: "w", state: [{ name, type: "string" }], nodes: [], edges: [edge("start", "end")] },
      environment,
    );
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems).toEqual([
      expect.objectContaining({
        code: "DOCUMENT_SCHEMA",
        path: "state.0.name",
        message: expect.stringContaining("reserved"),
      }),
    ]);
  });

  it("runs a workflow whose fields are ordinary names that merely look similar", async () => {
    const document = {
      name: "w",
      state: [
        { name: "to_string", type: "string", default: "a" },
        { name: "valueOfItem", type: "number", default: 2 },
      ],
      nodes: [],
      edges: [edge("start", "end")],
    };
    const { outcome } = await collect(runStream(document, {}, { engine: engineConfig() }));
    expect(outcome).toMatchObject({ status: "ok", state: { to_string: "a", valueOfItem: 2 } });
  });
});
