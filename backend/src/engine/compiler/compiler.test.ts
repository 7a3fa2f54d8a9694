import { describe, expect, it } from "vitest";
import { nestedSubgraphs } from "../../../test/adversarial-workflows.js";
import { engineConfig } from "../../../test/engine-harness.js";
import { validationEnvironment } from "../runtime/runtime.js";
import { validateWorkflow } from "../validator/validator.js";
import { compileWorkflow } from "./compiler.js";

describe("compiler", () => {
  it("compiles a child shared by many Subgraph nodes once, however deep the nesting", async () => {
    // Five levels of 20 Subgraph nodes: 20^5 keys to compute if each node recomputed its child's.
    const { top, saved } = nestedSubgraphs(5, 20);
    const resolve = async (id: string, version: number) => saved[`${id}@${version}`];
    const result = await validateWorkflow(top, validationEnvironment(engineConfig(), resolve));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const graph = compileWorkflow(result.workflow);
    expect(compileWorkflow(result.workflow)).toBe(graph);
    const child = result.workflow.subgraphs.get("s0");
    expect(child && result.workflow.subgraphs.get("s19")).toBe(child);
  });
});
