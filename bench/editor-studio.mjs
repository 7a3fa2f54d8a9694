// What the editor benchmarks share (editor.mjs, editor-inspector.mjs): the studio they start, the
// large workflow they open, the API calls, the figures' formatting, the select → settings loop, the
// render and store-update counter (--count), and the cleanups run at the end.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "../e2e/browser.ts";

export const ENTRY = fileURLToPath(new URL("../backend/dist/cli/main.js", import.meta.url));
export const UI = fileURLToPath(new URL("../frontend/dist/index.html", import.meta.url));
export const OWNER = { email: "bench@example.com", password: "bench-password", name: "Bench" };

export const cleanups = [];
export async function cleanup() {
  for (const step of cleanups.reverse()) await step().catch(() => {});
}
process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));

/** A workflow of `nodes` Code nodes in parallel chains, with cross edges up to `edges`. */
export function largeWorkflow(nodes, edges, name) {
  const chains = Math.max(1, Math.round(nodes / 100));
  const perChain = Math.ceil(nodes / chains);
  const state = Array.from({ length: chains }, (_, c) => ({ name: `field_${c}`, type: "string" }));
  const list = [];
  const edgeList = [];
  for (let i = 0; i < nodes; i++) {
    const chain = Math.floor(i / perChain);
    const step = i % perChain;
    list.push({
      id: `n${i}`,
      type: "code",
      position: { x: step * 260, y: chain * 160 },
      data: {
        label: `Step ${step} of chain ${chain}`,
        language: "javascript",
        code: `function main(state) {\n  return { field_${chain}: String(state.field_${chain} ?? "") + "${i}" };\n}`,
        outputs: [`field_${chain}`],
      },
    });
    const id = `e${edgeList.length}`;
    if (step === 0) edgeList.push({ id, source: "start", target: `n${i}` });
    else edgeList.push({ id, source: `n${i - 1}`, target: `n${i}` });
  }
  // Cross edges between neighbouring chains, step k → step k + 1, until the edge count is reached.
  for (let k = 0; edgeList.length < edges && k < nodes; k++) {
    const from = k;
    const to = k + perChain + 1;
    if (to < nodes && (from % perChain) + 1 < perChain)
      edgeList.push({ id: `e${edgeList.length}`, source: `n${from}`, target: `n${to}` });
  }
  return { name, state, nodes: list, edges: edgeList.slice(0, edges) };
}

/** Debian's Chromium, headless, with the browser tests' flags (one list: e2e/browser.ts); closed at the end. */
export async function launchChromium() {
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  return browser;
}

export function startStudio(env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "superstep-editor-bench-"));
  const child = spawn(process.execPath, [ENTRY, "start"], {
    env: {
      ...process.env,
      STUDIO_DATA_DIR: dataDir,
      STUDIO_HOST: "127.0.0.1",
      STUDIO_PORT: "0",
      JWT_SECRET: "editor-bench-secret-that-is-long-enough-for-hs256",
      STUDIO_LOG_LEVEL: "info",
      ...env,
    },
  });
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk) => {
      if (output === null) return;
      output += chunk.toString();
      const match = /running on (http:\/\/[^\s"]+)/.exec(output);
      if (!match) return;
      output = null;
      resolve(match[1].replace(/\/$/, ""));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the studio exited with ${code}:\n${output}`)));
  });
}

export async function call(url, method, path, { token, body } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(body ? { "content-type": "application/json" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

export const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
export const ms = (value) => `${value.toFixed(1)} ms`;
export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export function line(label, value, target, ok) {
  console.log(`  ${label.padEnd(46)} ${value.padStart(12)}   target ${target} ${ok ? "(met)" : "(MISSED)"}`);
}

// In-page helpers, installed before the app loads.
export function pageHelpers() {
  for (const type of ["pointerdown", "keydown"]) {
    // Modifier keys alone are not the input measured (Ctrl+V is timed from the V).
    const record = (e) => {
      if (!["Control", "Shift", "Alt", "Meta"].includes(e.key)) window.__bench.inputs[type].push(e.timeStamp);
    };
    window.addEventListener(type, record, { capture: true });
  }
  // Frame sampling: intervals between animation frames while `sampling` is on.
  window.__bench = {
    frames: [],
    sampling: false,
    startFrames() {
      this.frames = [];
      this.sampling = true;
      let last = performance.now();
      const tick = (now) => {
        if (!this.sampling) return;
        this.frames.push(now - last);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    stopFrames() {
      this.sampling = false;
      return this.frames.slice(1);
    },
    // Resolves with the time after `predicate` holds and the next frame has been painted.
    afterPaint(predicate, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = performance.now();
        const check = () => {
          if (predicate()) {
            requestAnimationFrame(() => {
              const channel = new MessageChannel();
              channel.port1.onmessage = () => resolve(performance.now());
              channel.port2.postMessage(null);
            });
            return;
          }
          if (performance.now() - started > timeoutMs) reject(new Error("timed out"));
          else setTimeout(check, 0);
        };
        check();
      });
    },
    // Where the first 50 rendered nodes are drawn.
    positions() {
      return [...document.querySelectorAll(".react-flow__node")]
        .slice(0, 50)
        .map((el) => el.style.transform)
        .join("|");
    },
    // Times of every pointerdown and keydown, recorded from the start (no listener can miss one).
    inputs: { pointerdown: [], keydown: [] },
  };
}

/** The nodes drawn inside the canvas, with their centres in page coordinates. */
export function visibleNodes(page) {
  return page.locator(".react-flow__node").evaluateAll((els) => {
    // Inside the canvas and away from its minimap and controls (bottom corners).
    const c = document.querySelector('[data-testid="workflow-canvas"]').getBoundingClientRect();
    return (
      els
        .map((el) => {
          const r = el.getBoundingClientRect();
          return {
            id: el.getAttribute("data-id"),
            left: r.left,
            right: r.right,
            x: r.x + r.width / 2,
            y: r.y + r.height / 2,
            w: r.width,
          };
        })
        .filter((n) => n.left > c.left + 60 && n.right < c.right - 10 && n.y > c.top + 10 && n.y < c.bottom - 160)
        // Only nodes whose centre is not covered by another.
        .filter(
          (n) => document.elementFromPoint(n.x, n.y)?.closest(".react-flow__node")?.getAttribute("data-id") === n.id,
        )
        .map(({ id, x, y, w }) => ({ id, x, y, w }))
    );
  });
}

/** How many inputs of `type` the page has seen; then the time of the one after them. */
export async function inputCount(page, type) {
  return { type, seen: await page.evaluate((t) => window.__bench.inputs[t].length, type) };
}

export async function inputTime(page, { type, seen }) {
  await page.waitForFunction(([t, n]) => window.__bench.inputs[t].length > n, [type, seen]);
  return page.evaluate(([t, n]) => window.__bench.inputs[t][n], [type, seen]);
}

/** Types `chars` into the settings' label field one key at a time: each key's input time to the frame that shows it. */
export async function typeIntoLabel(page, label, chars) {
  const times = [];
  for (const char of chars) {
    const input = await inputCount(page, "keydown");
    const before = await label.inputValue();
    await page.keyboard.type(char);
    const t0 = await inputTime(page, input);
    const t1 = await page.evaluate(
      (expected) =>
        window.__bench.afterPaint(() => document.querySelector('[data-testid="settings-label"]')?.value === expected),
      before + char,
    );
    times.push(t1 - t0);
  }
  return times;
}

/** Clears the selection, then zooms in with "+" until `count` nodes are drawn wide enough (over 50 px) to click on their body. */
export async function nodesToSelect(page, pane, count = 15) {
  await pane.click({ position: { x: 5, y: 5 } });
  let near = [];
  for (let i = 0; i < 40 && near.length < count; i++) {
    await page.keyboard.press("+");
    await page.waitForTimeout(100);
    near = (await visibleNodes(page)).filter((n) => n.id?.startsWith("n") && n.w > 50);
  }
  return near.slice(0, count);
}

/**
 * Select → settings shown for each of `nodes`: a click on the canvas's background first (clicking a
 * node of a multi-selection keeps the selection), then on the node; its pointerdown's time to the
 * frame that shows its settings. `pauseMs` waits after the background click; `before` and `after`
 * run around each timed click (the inspector's render counts).
 */
export async function timeSelections(page, pane, nodes, { pauseMs = 0, before, after } = {}) {
  const times = [];
  for (const node of nodes) {
    await pane.click({ position: { x: 5, y: 5 } });
    if (pauseMs > 0) await page.waitForTimeout(pauseMs);
    if (before) await before();
    const input = await inputCount(page, "pointerdown");
    await page.mouse.click(node.x, node.y);
    const t0 = await inputTime(page, input);
    const t1 = await page.evaluate(
      (id) =>
        window.__bench.afterPaint(() => document.querySelector(`[data-testid="node-settings"][data-node-id="${id}"]`)),
      node.id,
    );
    times.push(t1 - t0);
    if (after) await after();
  }
  return times;
}

// Counts the React components that rendered (fibers with PerformedWork) per commit, by name, and
// the updates of React Flow's store (each runs the selectors of every mounted node, handle and edge)
// with the fields each changed.
export function renderCounter() {
  const counts = { commits: 0, components: 0, byName: {}, flowUpdates: [], selectorCalls: 0 };
  let flowStore = null;
  // React Flow's store is the value of a context provider whose state has a nodeLookup.
  const findFlowStore = (fiber) => {
    while (fiber && !flowStore) {
      const value = fiber.memoizedProps?.value;
      if (value && typeof value.getState === "function" && typeof value.subscribe === "function") {
        const state = value.getState();
        if (state && typeof state === "object" && "nodeLookup" in state) {
          flowStore = value;
          // Every subscriber's selector runs on each update: count the calls (components subscribe
          // in effects after this commit, through the store's `subscribe`).
          const subscribe = value.subscribe;
          value.subscribe = (listener) =>
            subscribe((next, previous) => {
              counts.selectorCalls++;
              listener(next, previous);
            });
          subscribe((next, previous) => {
            counts.flowUpdates.push(
              Object.keys(next)
                .filter((key) => next[key] !== previous[key])
                .join(",") || "-",
            );
          });
        }
      }
      if (fiber.child) findFlowStore(fiber.child);
      fiber = fiber.sibling;
    }
  };
  // As React DevTools tells: a fiber rendered when it is new or has PerformedWork; a subtree whose
  // children are the very fibers of the previous commit was not visited.
  const walk = (fiber) => {
    while (fiber) {
      const fresh = fiber.alternate === null;
      if ([0, 1, 11, 14, 15].includes(fiber.tag) && (fresh || (fiber.flags & 1) === 1)) {
        counts.components++;
        const t = fiber.type?.type ?? fiber.type?.render ?? fiber.type;
        const name = t?.displayName ?? t?.name ?? "?";
        counts.byName[name] = (counts.byName[name] ?? 0) + 1;
      }
      if (fiber.child && (fresh || fiber.child !== fiber.alternate.child)) walk(fiber.child);
      fiber = fiber.sibling;
    }
  };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject() {
      return 1;
    },
    onCommitFiberRoot(_id, root) {
      counts.commits++;
      walk(root.current.child);
      if (!flowStore) findFlowStore(root.current.child);
    },
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
  };
  window.__renders = {
    reset() {
      counts.commits = 0;
      counts.components = 0;
      counts.byName = {};
      counts.flowUpdates = [];
      counts.selectorCalls = 0;
    },
    take() {
      const top = Object.entries(counts.byName)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 25);
      // The fields each React Flow store update changed ("-": none).
      return {
        commits: counts.commits,
        components: counts.components,
        flowUpdates: counts.flowUpdates,
        selectorCalls: counts.selectorCalls,
        top,
      };
    },
  };
}
