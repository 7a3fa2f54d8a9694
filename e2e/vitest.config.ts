import { defineConfig } from "vitest/config";

// Browser tests: the built studio as a real process, Debian's Chromium driven by playwright-core.
export default defineConfig({
  test: {
    name: "e2e",
    include: ["**/*.e2e.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
