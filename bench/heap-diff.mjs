// What is retained per run: compares heap snapshots taken after N and after 2N runs (object
// counts and sizes by kind, biggest growth first) and prints the shortest chains of strong
// references from the GC roots to objects of a kind, or what is alive only through one property.
// A profiling aid (decision 0016), not a benchmark.
//
// Snapshots: start the server with bench/memory-probe.mjs and MEMORY_PROBE_SNAPSHOT_DIR set; every
// SIGUSR2 then collects garbage and writes DIR/probe-<n>.heapsnapshot.
//
// Run: node bench/heap-diff.mjs counts A.heapsnapshot B.heapsnapshot [C …]
//      node bench/heap-diff.mjs paths FILE.heapsnapshot Kind [how-many]
//      node bench/heap-diff.mjs only-via FILE.heapsnapshot propertyName
// (large snapshots need node --max-old-space-size=4096)
import { benchArgs, readJsonFile, usageError, wholeNumber } from "./bench-args.mjs";

const USAGE = `node bench/heap-diff.mjs counts A.heapsnapshot B.heapsnapshot [C …]
node bench/heap-diff.mjs paths FILE.heapsnapshot Kind [how-many]
node bench/heap-diff.mjs only-via FILE.heapsnapshot propertyName`;

function load(file) {
  const snap = readJsonFile(USAGE, file);
  if (!snap?.snapshot?.meta) usageError(USAGE, `${file} is not a heap snapshot`);
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const g = {
    nodes: snap.nodes,
    edges: snap.edges,
    strings: snap.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    nfl: nf.length,
    efl: ef.length,
    iType: nf.indexOf("type"),
    iName: nf.indexOf("name"),
    iSize: nf.indexOf("self_size"),
    iEdges: nf.indexOf("edge_count"),
    eType: ef.indexOf("type"),
    eName: ef.indexOf("name_or_index"),
    eTo: ef.indexOf("to_node"),
  };
  g.count = g.nodes.length / g.nfl;
  g.firstEdge = new Uint32Array(g.count + 1);
  for (let i = 0, e = 0; i < g.count; i++) {
    g.firstEdge[i] = e;
    e += g.nodes[i * g.nfl + g.iEdges] * g.efl;
  }
  g.firstEdge[g.count] = g.edges.length;
  g.type = (i) => g.nodeTypes[g.nodes[i * g.nfl + g.iType]];
  g.name = (i) => g.strings[g.nodes[i * g.nfl + g.iName]];
  g.size = (i) => g.nodes[i * g.nfl + g.iSize];
  g.kind = (i) => {
    const type = g.type(i);
    return type === "object" || type === "closure" ? `${type}:${g.name(i).slice(0, 60)}` : type;
  };
  g.edgeType = (e) => g.edgeTypes[g.edges[e + g.eType]];
  g.edgeName = (e) => {
    const type = g.edgeType(e);
    return type === "element" || type === "hidden" ? `[${g.edges[e + g.eName]}]` : g.strings[g.edges[e + g.eName]];
  };
  return g;
}

/** Breadth-first over strong edges from the root; `skip(e)` leaves an edge out. */
function reach(g, skip = () => false) {
  const parentEdge = new Int32Array(g.count).fill(-1);
  const parent = new Int32Array(g.count).fill(-1);
  const seen = new Uint8Array(g.count);
  seen[0] = 1;
  const queue = [0];
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head];
    for (let e = g.firstEdge[i]; e < g.firstEdge[i + 1]; e += g.efl) {
      const type = g.edgeType(e);
      if (type === "weak" || type === "shortcut" || skip(e)) continue;
      const j = g.edges[e + g.eTo] / g.nfl;
      if (seen[j]) continue;
      seen[j] = 1;
      parent[j] = i;
      parentEdge[j] = e;
      queue.push(j);
    }
  }
  return { seen, parent, parentEdge };
}

const [command, ...args] = benchArgs(USAGE, {}, { positionals: Number.POSITIVE_INFINITY }).positionals;
// How many arguments each command takes, at least and at most.
const ARITY = { counts: [2, Number.POSITIVE_INFINITY], paths: [2, 3], "only-via": [2, 2] };
if (command in ARITY && (args.length < ARITY[command][0] || args.length > ARITY[command][1]))
  usageError(USAGE, `${command}: wrong number of arguments`);
if (command === "counts") {
  const tallies = args.map((file) => {
    const g = load(file);
    const tally = new Map();
    for (let i = 0; i < g.count; i++) {
      const entry = tally.get(g.kind(i)) ?? { n: 0, bytes: 0 };
      entry.n++;
      entry.bytes += g.size(i);
      tally.set(g.kind(i), entry);
    }
    return tally;
  });
  const kinds = new Set(tallies.flatMap((t) => [...t.keys()]));
  const rows = [...kinds].map((kind) => {
    const n = tallies.map((t) => t.get(kind)?.n ?? 0);
    const bytes = tallies.map((t) => t.get(kind)?.bytes ?? 0);
    return { kind, n, grew: n.at(-1) - n[0], bytes: bytes.at(-1) - bytes[0] };
  });
  rows.sort((a, b) => b.bytes - a.bytes);
  console.log(`${"kind".padEnd(64)} ${"count in each snapshot".padEnd(28)} growth  bytes`);
  for (const r of rows.slice(0, 30))
    console.log(`${r.kind.padEnd(64)} ${r.n.join(" / ").padEnd(28)} ${r.grew}  ${r.bytes}`);
} else if (command === "paths") {
  const [file, kind, howManyArg] = args;
  const howMany = wholeNumber(USAGE, "how-many", howManyArg, 5);
  const g = load(file);
  const { seen, parent, parentEdge } = reach(g);
  const chains = new Map();
  for (let i = 0; i < g.count; i++) {
    if (g.kind(i) !== `object:${kind}` || !seen[i]) continue;
    const steps = [];
    for (let j = i; j > 0 && steps.length < 14; j = parent[j])
      steps.push(`${g.kind(j)} <-${g.edgeName(parentEdge[j])}-`);
    const chain = steps
      .join("\n   ")
      .replace(/\[\d+\]/g, "[n]")
      .replace(/<-\d+-/g, "<-n-");
    chains.set(chain, (chains.get(chain) ?? 0) + 1);
  }
  for (const [chain, n] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, howMany)) console.log(`${n} × ${chain}\n`);
} else if (command === "only-via") {
  const [file, property] = args;
  const g = load(file);
  const all = reach(g).seen;
  const without = reach(g, (e) => g.edgeType(e) !== "element" && g.edgeName(e) === property).seen;
  const tally = new Map();
  let bytes = 0;
  for (let i = 0; i < g.count; i++) {
    if (!all[i] || without[i]) continue;
    bytes += g.size(i);
    tally.set(g.kind(i), (tally.get(g.kind(i)) ?? 0) + 1);
  }
  console.log(`alive only through "${property}": ${(bytes / 1048576).toFixed(2)} MB`);
  for (const [kind, n] of [...tally].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${kind.padEnd(60)} ${n}`);
} else {
  usageError(USAGE, command === undefined ? "which comparison? counts, paths or only-via" : `no command '${command}'`);
}
