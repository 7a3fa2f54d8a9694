// Preloaded into a studio process by tests (NODE_OPTIONS=--import): records every module the
// process loads (ES modules and require() alike) and, on SIGUSR2, prints their URLs on one line
// of stderr: `superstep-test-modules <JSON array>`.
import { registerHooks } from "node:module";

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on("SIGUSR2", () => {
  process.stderr.write(`superstep-test-modules ${JSON.stringify([...loaded])}\n`);
});
