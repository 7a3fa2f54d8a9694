// Summarises a sampling heap profile (`.heapprofile`, e.g. from `run-path-profile.mjs
// --alloc-prof`, which keeps collected objects in it, so it shows what was allocated, not only what
// is alive; with --alloc-survivors, only what outlived a young collection): bytes per run by
// function, then by the nearest of the studio's own frames above them.
//
// Run: node bench/heap-profile-summary.mjs FILE.heapprofile [runs in the profile] [rows]
import { benchArgs, readJsonFile, usageError, wholeNumber } from "./bench-args.mjs";

const USAGE = "usage: node bench/heap-profile-summary.mjs FILE.heapprofile [runs] [rows]";
const [file, runsArg, rowsArg] = benchArgs(USAGE, {}, { positionals: 3 }).positionals;
if (!file) usageError(USAGE, "which profile? give its file");
const runs = wholeNumber(USAGE, "runs", runsArg, 1);
const rows = wholeNumber(USAGE, "rows", rowsArg, 30);
const { head } = readJsonFile(USAGE, file) ?? {};
if (!head) usageError(USAGE, `${file} is not a sampling heap profile (no head)`);

const byFunction = new Map();
const byStudioFrame = new Map();
let total = 0;
const add = (map, key, bytes) => map.set(key, (map.get(key) ?? 0) + bytes);

// Iterative walk: allocation stacks can be deeper than the JavaScript stack allows to recurse.
const pending = [{ node: head, studio: null }];
while (pending.length > 0) {
  const { node, studio } = pending.pop();
  const frame = node.callFrame;
  const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
  const nearest = frame.url.includes("/backend/") ? name : studio;
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(byFunction, name, node.selfSize);
    add(byStudioFrame, nearest ?? "(no studio frame)", node.selfSize);
  }
  for (const child of node.children) pending.push({ node: child, studio: nearest });
}

const perRun = (bytes) => `${(bytes / runs / 1024).toFixed(1)} KB`.padStart(10);
const print = (title, map) => {
  console.log(`\n${title}:`);
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(`${perRun(bytes)}  ${key}`);
};
console.log(`${file}: ${perRun(total).trim()} allocated per run (${runs} runs), sampled`);
print("By function (self)", byFunction);
print("By the nearest studio frame", byStudioFrame);
