import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The docs' screenshots (`npm run docs:screenshots`): the same setup as the browser tests.
export default defineConfig({
  test: {
    name: "docs-screenshots",
    include: ["**/*.shots.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    setupFiles: [fileURLToPath(new URL("../backend/test/reap.setup.ts", import.meta.url))],
  },
});
