import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Unit tests of the UI's logic (document store, locales, API client): plain TypeScript in Node.
// What needs a browser is tested in e2e/ against the real studio.
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    name: "frontend",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "vite-plugins/**/*.test.ts"],
  },
});
