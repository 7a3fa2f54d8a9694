// The settings panel's two steps of the editor benchmark (editor.mjs), alone and quicker: select a
// node → its settings shown (p95 of 15) and keystroke → paint in the label field (p95 of 20), on
// the same 500-node, 600-edge workflow with the same clicks, keys and measurement. `--count` also
// prints how many React commits, component renders and React Flow store updates a selection and
// 20 keystrokes cause (a React DevTools hook, installed before the app loads); `--profile` /
// `--profile-select` write a CPU profile of the keystrokes / selections to the temporary
// directory. STUDIO_UI_DIR runs it against another build of the UI (an A/B comparison). Prints
// figures; asserts nothing.
// Run: npm run build && node bench/editor-inspector.mjs [--nodes 500] [--edges 600] [--count]
import { existsSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs, wholeNumber } from "./bench-args.mjs";
import {
  call,
  cleanup,
  ENTRY,
  largeWorkflow,
  launchChromium,
  line,
  ms,
  nodesToSelect,
  OWNER,
  pageHelpers,
  percentile,
  renderCounter,
  startStudio,
  timeSelections,
  typeIntoLabel,
  UI,
} from "./editor-studio.mjs";

const USAGE = `node bench/editor-inspector.mjs [options]   (after npm run build)
  --nodes N, --edges N   the large workflow's size (default 500 nodes, 600 edges)
  --count                React commits, renders and store updates of a selection and 20 keystrokes
  --profile              a CPU profile of the keystrokes, written to the temporary directory
  --profile-select       a CPU profile of the selections, written to the temporary directory
STUDIO_UI_DIR runs it against another build of the UI.`;
const { values: options } = benchArgs(USAGE, {
  nodes: { type: "string", default: "500" },
  edges: { type: "string", default: "600" },
  count: { type: "boolean", default: false },
  profile: { type: "boolean", default: false },
  "profile-select": { type: "boolean", default: false },
});
const NODES = wholeNumber(USAGE, "--nodes", options.nodes);
const EDGES = wholeNumber(USAGE, "--edges", options.edges, 0, 0);

async function main() {
  if (!existsSync(ENTRY) || !existsSync(UI)) throw new Error("the studio is not built: run `npm run build` first");
  console.log(
    `editor-inspector: ${NODES} nodes; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  const url = await startStudio();
  const setup = await call(url, "POST", "/api/auth/setup", { body: OWNER });
  const token = setup.body.data.token;
  const user = setup.body.data.user ?? (await call(url, "GET", "/api/auth/me", { token })).body.data;
  const created = await call(url, "POST", "/api/workflows", { token, body: largeWorkflow(NODES, EDGES, "Large") });
  const workflowId = created.body.data.id;
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  await context.addInitScript(pageHelpers);
  if (COUNT) await context.addInitScript(renderCounter);
  const page = await context.newPage();
  await page.goto(`${url}/login`);
  await page.evaluate((value) => localStorage.setItem("superstep.session", value), JSON.stringify({ token, user }));
  await page.goto(`${url}/workflows/${workflowId}`);
  await page.evaluate(() => window.__bench.afterPaint(() => document.querySelectorAll(".react-flow__node").length > 0));
  const pane = page.locator(".react-flow__pane");
  await page.waitForTimeout(1500);
  const near = await nodesToSelect(page, pane);
  const selectTimes = [];
  const selectRenders = [];
  const cdpSel = PROFILE_SELECT ? await context.newCDPSession(page) : null;
  if (cdpSel) {
    await cdpSel.send("Profiler.enable");
    await cdpSel.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdpSel.send("Profiler.start");
  }
  selectTimes.push(
    ...(await timeSelections(page, pane, near, {
      pauseMs: 50,
      before: COUNT ? () => page.evaluate(() => window.__renders.reset()) : undefined,
      after: COUNT
        ? async () => {
            await page.waitForTimeout(300);
            selectRenders.push(await page.evaluate(() => window.__renders.take()));
          }
        : undefined,
    })),
  );
  if (cdpSel) {
    const { profile } = await cdpSel.send("Profiler.stop");
    (await import("node:fs")).writeFileSync(
      join(tmpdir(), "editor-inspector-select.cpuprofile"),
      JSON.stringify(profile),
    );
  }
  console.log("select times", selectTimes.map((x) => x.toFixed(0)).join(" "));
  line(
    `select → settings (p95 of ${selectTimes.length})`,
    ms(percentile(selectTimes, 95)),
    "≤ 100 ms",
    percentile(selectTimes, 95) <= 100,
  );
  console.log(`  median ${ms(percentile(selectTimes, 50))}`);
  if (COUNT) console.log("select renders", JSON.stringify(selectRenders.slice(-2)));
  const label = page.getByTestId("settings-label");
  await label.click();
  await page.keyboard.press("End");
  const keyTimes = [];
  const cdp = PROFILE ? await context.newCDPSession(page) : null;
  if (cdp) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
  }
  if (COUNT) await page.evaluate(() => window.__renders.reset());
  keyTimes.push(...(await typeIntoLabel(page, label, "abcdefghijklmnopqrst")));
  if (cdp) {
    await page.waitForTimeout(1500);
    const { profile } = await cdp.send("Profiler.stop");
    (await import("node:fs")).writeFileSync(
      join(tmpdir(), "editor-inspector-keys.cpuprofile"),
      JSON.stringify(profile),
    );
  }
  console.log("key times", keyTimes.map((x) => x.toFixed(0)).join(" "));
  line("keystroke → paint (p95 of 20)", ms(percentile(keyTimes, 95)), "≤ 50 ms", percentile(keyTimes, 95) <= 50);
  console.log(`  median ${ms(percentile(keyTimes, 50))}`);
  if (COUNT) {
    await page.waitForTimeout(1500);
    console.log(
      "renders over 20 keystrokes + 1.5 s",
      JSON.stringify(await page.evaluate(() => window.__renders.take())),
    );
  }
}

const COUNT = options.count;
const PROFILE = options.profile;
const PROFILE_SELECT = options["profile-select"];

try {
  await main();
} finally {
  await cleanup();
}
