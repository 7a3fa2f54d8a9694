import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Browser tests: the built studio as a real process, Debian's Chromium driven by playwright-core.
export default defineConfig({
  test: {
    name: "e2e",
    include: ["**/*.e2e.test.ts"],
    // Generous limits that only end a stuck test: a busy machine is slow, never failing.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
    setupFiles: [fileURLToPath(new URL("../backend/test/reap.setup.ts", import.meta.url))],
    fileParallelism: false,
  },
});
