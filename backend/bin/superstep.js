#!/usr/bin/env node
// The `superstep` command runs the compiled backend; `npm run build` produces it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
if (!existsSync(entry)) {
  console.error("superstep: the backend is not built yet; run `npm run build` in the repository first.");
  process.exit(1);
}
await import(entry);
