// Summarises a V8 CPU profile (`node --cpu-prof`, e.g. the studio's from `throughput.mjs
// --cpu-prof DIR`): sampled time by package, the functions with the most self time, and the
// studio's own functions by inclusive time (themselves and what they call).
// Run: node bench/cpu-profile-summary.mjs FILE.cpuprofile [rows]
import { benchArgs, readJsonFile, usageError, wholeNumber } from "./bench-args.mjs";

const USAGE = "usage: node bench/cpu-profile-summary.mjs FILE.cpuprofile [rows]";
const [file, rowsArg] = benchArgs(USAGE, {}, { positionals: 2 }).positionals;
if (!file) usageError(USAGE, "which profile? give its file");
const rows = wholeNumber(USAGE, "rows", rowsArg, 30);
const profile = readJsonFile(USAGE, file);
if (!Array.isArray(profile?.nodes)) usageError(USAGE, `${file} is not a CPU profile (no nodes)`);
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

// Self time per profile node: each sample's time delta belongs to the node it landed in.
const self = new Map();
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
let total = 0;
let idle = 0;
for (const [id, time] of self) {
  total += time;
  if (nodes.get(id).callFrame.functionName === "(idle)") idle += time;
}

const place = (url) =>
  url
    .replace(/^file:\/\/.*?\/node_modules\//, "")
    .replace(/^file:\/\/.*?\/backend\/dist\//, "backend/")
    .replace(/^file:\/\//, "");
const packageOf = (url) => {
  if (url.includes("/node_modules/")) {
    const parts = url.split("/node_modules/").pop().split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith("node:")) return "node (internal)";
  if (url.includes("/backend/dist/")) return `backend/${url.split("/backend/dist/")[1].split("/")[0]}`;
  return url || "(native or VM)";
};
const nameOf = ({ functionName, url, lineNumber }) =>
  `${functionName || "(anonymous)"}${url ? ` ${place(url)}:${lineNumber + 1}` : ""}`;

const byPackage = new Map();
const bySelf = new Map();
for (const [id, time] of self) {
  const frame = nodes.get(id).callFrame;
  const pkg = frame.url ? packageOf(frame.url) : frame.functionName;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
  bySelf.set(nameOf(frame), (bySelf.get(nameOf(frame)) ?? 0) + time);
}

// Inclusive time of the studio's functions, counting a recursive function once per stack.
const inclusive = new Map();
function walk(id, onStack) {
  const node = nodes.get(id);
  const name = nameOf(node.callFrame);
  const first = !onStack.has(name);
  if (first) onStack.add(name);
  let time = self.get(id) ?? 0;
  for (const child of node.children ?? []) time += walk(child, onStack);
  if (first) {
    onStack.delete(name);
    if (node.callFrame.url.includes("/backend/dist/")) inclusive.set(name, (inclusive.get(name) ?? 0) + time);
  }
  return time;
}
walk(profile.nodes[0].id, new Set());

const busy = total - idle;
const print = (title, map, base, count) => {
  console.log(`\n${title}`);
  for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(
      `${(time / 1000).toFixed(0).padStart(8)} ms ${((100 * time) / base).toFixed(1).padStart(5)} %  ${name}`,
    );
  }
};
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (not idle). ` +
    "Percentages of busy time; a synchronous call that waits (node:sqlite's fsync) counts as busy.",
);
byPackage.delete("(idle)");
bySelf.delete("(idle)");
print("By package (self time):", byPackage, busy, 20);
print("Functions by self time:", bySelf, busy, rows);
print("The studio's functions by inclusive time:", inclusive, busy, rows);
