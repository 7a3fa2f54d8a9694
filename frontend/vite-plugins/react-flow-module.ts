// A Vite plugin that changes React Flow's ES module as it is bundled (the build and the
// development server's dependency bundling): what react-flow-removed-nodes.ts and
// react-flow-store-updates.ts share.
import type { Plugin } from "vite";

const REACT_FLOW_ENTRY = /[\\/]@xyflow[\\/]react[\\/]dist[\\/]esm[\\/]index\.(m?js)$/;

/** A plugin named `name` that applies `patch` to React Flow's module and leaves every other module alone. */
export function patchReactFlow(name: string, patch: (code: string) => string): Plugin {
  return {
    name,
    enforce: "pre",
    transform(code, id) {
      if (!REACT_FLOW_ENTRY.test(id.split("?")[0] ?? id)) return null;
      return { code: patch(code), map: null };
    },
  };
}
