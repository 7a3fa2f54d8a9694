import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { patchNodeWrapper, REMOVED_NODE_READ, reactFlowRemovedNodes } from "./react-flow-removed-nodes";

// The installed React Flow's ES modules (the browser build and the one Node resolves).
const require = createRequire(import.meta.url);
const esm = join(dirname(require.resolve("@xyflow/react/package.json")), "dist", "esm");
const installed = ["index.js", "index.mjs"].map((file) => readFileSync(join(esm, file), "utf8"));

describe("React Flow's node wrapper, patched at build time", () => {
  it("reads a removed node's internals without throwing, in every module of the installed React Flow", () => {
    for (const code of installed) {
      const patched = patchNodeWrapper(code);
      const wrapper = patched.slice(patched.indexOf("function NodeWrapper("));
      const selector = wrapper.slice(0, wrapper.indexOf("}, shallow)"));
      expect(selector).toContain("const node = s.nodeLookup.get(id);");
      expect(selector).toContain(REMOVED_NODE_READ.replace);
      expect(selector).not.toContain(REMOVED_NODE_READ.find);
      // One character more (the `?`), nothing else changed.
      expect(patched.length).toBe(code.length + 1);
      expect(patched.replace(REMOVED_NODE_READ.replace, REMOVED_NODE_READ.find)).toBe(code);
    }
  });

  it("fails the build when the selector it patches is not found", () => {
    expect(() => patchNodeWrapper("export const unrelated = 1;")).toThrow(/no longer reads `node.internals`/);
    const [code = ""] = installed;
    expect(() => patchNodeWrapper(code.replace(REMOVED_NODE_READ.find, "internals: node.internals2,"))).toThrow();
  });

  it("transforms React Flow's module and nothing else", () => {
    const plugin = reactFlowRemovedNodes();
    const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
    const [code = ""] = installed;
    expect(transform(code, join(esm, "index.js"))?.code).toContain(REMOVED_NODE_READ.replace);
    expect(transform(code, "/app/node_modules/other/dist/esm/index.js")).toBeNull();
  });
});
