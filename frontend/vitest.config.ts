import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { reactFlowRemovedNodes } from "./vite-plugins/react-flow-removed-nodes";
import { reactFlowStoreUpdates } from "./vite-plugins/react-flow-store-updates";

// Unit tests of the UI's logic (document store, locales, API client): plain TypeScript in Node.
// What needs a browser is tested in e2e/ against the real studio. React Flow goes through the
// same build-time changes as in the bundle (vite-plugins/), so tests see the React Flow that ships.
export default defineConfig({
  plugins: [reactFlowRemovedNodes(), reactFlowStoreUpdates()],
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    name: "frontend",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "vite-plugins/**/*.test.ts", "vite-plugins/**/*.test.tsx"],
    server: { deps: { inline: ["@xyflow/react"] } },
  },
});
