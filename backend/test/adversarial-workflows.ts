// Generated workflow documents at the size limits, shaped to make a validator work hard: grids
// ("ladders"), chains with skip edges, dense fan-outs, layered complete DAGs, loops through
// Conditions and For each nodes, long prompts full of braces, nested subgraphs. Shared by the
// validator tests and bench/validation.mjs (which loads this file through Node's type stripping,
// so it has no imports and only erasable type syntax).

export type Doc = {
  name: string;
  state: { name: string; type: string; reducer?: string }[];
  nodes: { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> }[];
  edges: { id: string; source: string; target: string; label?: string }[];
};

const at = { x: 0, y: 0 };

export function codeNode(id: string, outputs: string[] = []): Doc["nodes"][number] {
  return {
    id,
    type: "code",
    position: at,
    data: { language: "javascript", code: "function main(s) { return {}; }", outputs },
  };
}

export function edgeOf(source: string, target: string, label?: string): Doc["edges"][number] {
  return { id: `${source}-${target}${label ? `-${label}` : ""}`, source, target, ...(label ? { label } : {}) };
}

/** `a` is a replace field; `log` appends. */
const STATE: Doc["state"] = [
  { name: "a", type: "any" },
  { name: "log", type: "list", reducer: "append" },
];

/**
 * A grid of rows × columns code nodes, edges right and down, Start into the top-left corner.
 * Every node runs exactly once, on its anti-diagonal (superstep row + column + 1). `writers`
 * pick the nodes that write `a`; every node appends to `log`.
 */
export function ladder(rows: number, columns: number, writers: [number, number][]): Doc {
  const id = (r: number, c: number) => `g${r}_${c}`;
  const writes = new Set(writers.map(([r, c]) => id(r, c)));
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [edgeOf("start", id(0, 0))];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      nodes.push(codeNode(id(r, c), writes.has(id(r, c)) ? ["a", "log"] : ["log"]));
      if (c + 1 < columns) edges.push(edgeOf(id(r, c), id(r, c + 1)));
      if (r + 1 < rows) edges.push(edgeOf(id(r, c), id(r + 1, c)));
    }
  }
  return { name: `ladder ${rows}x${columns}`, state: STATE, nodes, edges };
}

/**
 * A chain n0 … n(count-1) where every node also skips ahead: i → i+1 … i+span. Node i can run in
 * many supersteps (from about i / span to i). `writers` write `a`.
 */
export function skipChain(count: number, span: number, writers: number[]): Doc {
  const writes = new Set(writers);
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [edgeOf("start", "n0")];
  for (let i = 0; i < count; i++) {
    nodes.push(codeNode(`n${i}`, writes.has(i) ? ["a"] : []));
    for (let k = 1; k <= span && i + k < count; k++) edges.push(edgeOf(`n${i}`, `n${i + k}`));
  }
  return { name: `skip chain ${count}/${span}`, state: STATE, nodes, edges };
}

/**
 * One node fanning out to `width` branches, each `depth` nodes long, all ending in a Join. The
 * hub and the node after the Join write `a` (in different phases); so does the last node of every
 * branch when `clash` is set, otherwise the branches only append.
 */
export function fanOut(width: number, depth: number, clash: boolean): Doc {
  const nodes: Doc["nodes"] = [codeNode("hub", ["a"]), { id: "j", type: "join", position: at, data: {} }];
  const edges: Doc["edges"] = [edgeOf("start", "hub"), edgeOf("j", "end")];
  for (let b = 0; b < width; b++) {
    for (let d = 0; d < depth; d++) {
      const last = d === depth - 1;
      nodes.push(codeNode(`b${b}_${d}`, last && clash ? ["a"] : ["log"]));
      edges.push(edgeOf(d === 0 ? "hub" : `b${b}_${d - 1}`, `b${b}_${d}`));
    }
    edges.push(edgeOf(`b${b}_${depth - 1}`, "j"));
  }
  nodes.push(codeNode("after", ["a"]));
  edges.push(edgeOf("j", "after"));
  return { name: `fan-out ${width}x${depth}`, state: STATE, nodes, edges };
}

/**
 * Layers of `width` nodes, every node joined to every node of the next layer (width² edges per
 * layer): every node is reached by `width` tokens at once. The first and last layers write `a`
 * through their first node only, so nothing clashes and the whole graph is walked.
 */
export function layeredDag(layers: number, width: number): Doc {
  const id = (l: number, w: number) => `l${l}_${w}`;
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [];
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      const writer = w === 0 && (l === 0 || l === layers - 1);
      nodes.push(codeNode(id(l, w), writer ? ["a"] : ["log"]));
      if (l === 0) edges.push(edgeOf("start", id(l, w)));
      else for (let v = 0; v < width; v++) edges.push(edgeOf(id(l - 1, v), id(l, w)));
    }
  }
  return { name: `layered DAG ${layers}x${width}`, state: STATE, nodes, edges };
}

/**
 * Loops: a ring of `ring` Conditions; after each Condition, a For each (body: a code node) and a
 * plain node that writes `a`. Every Condition can loop back to the first one or go on; the last
 * exits. Nothing fans out, so only one of these nodes runs at a time and the answer is "valid",
 * but loops keep every node active until the walk's horizon.
 */
export function conditionLoops(ring: number): Doc {
  const state: Doc["state"] = [...STATE, { name: "items", type: "list" }, { name: "out", type: "list" }];
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [edgeOf("start", "k0")];
  for (let i = 0; i < ring; i++) {
    nodes.push(
      conditionNode(`k${i}`, ["on", "again"]),
      {
        id: `f${i}`,
        type: "for_each",
        position: at,
        data: { items: "{{ state.items }}", output_field: "out" },
      },
      codeNode(`body${i}`, ["log"]),
      codeNode(`p${i}`, ["a"]),
    );
    const next = i + 1 < ring ? `k${i + 1}` : "end";
    edges.push(
      edgeOf(`k${i}`, "k0", "again"),
      edgeOf(`k${i}`, `f${i}`, "on"),
      edgeOf(`f${i}`, `body${i}`, "item"),
      edgeOf(`f${i}`, `p${i}`, "done"),
      edgeOf(`p${i}`, next),
    );
  }
  return { name: `condition loops ${ring}`, state, nodes, edges };
}

/** LLM nodes whose prompts are `text` (the same for each). */
export function prompts(count: number, text: string): Doc {
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [edgeOf("start", "p0")];
  for (let i = 0; i < count; i++) {
    nodes.push({ id: `p${i}`, type: "llm", position: at, data: { model: "m", prompt: text, output_field: "log" } });
    if (i > 0) edges.push(edgeOf(`p${i - 1}`, `p${i}`));
  }
  return { name: `prompts ${count}x${text.length}`, state: STATE, nodes, edges };
}

/**
 * Saved workflows nested `levels` deep: level k has `width` Subgraph nodes in a chain, every one
 * using level k + 1 (version 1); the last level has `width` code nodes. Returns the top document
 * and the saved versions by "id@version".
 */
export function nestedSubgraphs(levels: number, width: number): { top: Doc; saved: Record<string, Doc> } {
  const level = (k: number): Doc => {
    const nodes: Doc["nodes"] = [];
    const edges: Doc["edges"] = [edgeOf("start", "s0")];
    for (let i = 0; i < width; i++) {
      nodes.push(
        k === levels
          ? codeNode(`s${i}`, ["log"])
          : {
              id: `s${i}`,
              type: "subgraph",
              position: at,
              data: { workflow_id: `level${k + 1}`, version: 1, input: {}, output: { log: "log" } },
            },
      );
      if (i > 0) edges.push(edgeOf(`s${i - 1}`, `s${i}`));
    }
    return { name: `level ${k}`, state: STATE, nodes, edges };
  };
  const saved: Record<string, Doc> = {};
  for (let k = 1; k <= levels; k++) saved[`level${k}@1`] = level(k);
  return { top: level(0), saved };
}

function conditionNode(id: string, labels: string[]): Doc["nodes"][number] {
  return {
    id,
    type: "condition",
    position: at,
    data: {
      rules: labels.slice(1).map((label) => ({ label, conditions: [{ field: "a", operator: "is_empty" }] })),
      default_label: labels[0],
    },
  };
}

/**
 * A mesh of `conditions` Conditions, each routing to the next `fanout` ones (around a ring), beside
 * a chain of `tail` code nodes. The mesh stays busy in every superstep while the chain keeps
 * reaching new nodes, so one phase runs for about tail + 400 supersteps with the whole mesh
 * active. The chain's first and last nodes write `a` (never together).
 */
export function routerMesh(conditions: number, fanout: number, tail: number): Doc {
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [edgeOf("start", "c0"), ...(tail > 0 ? [edgeOf("start", "t0")] : [])];
  for (let i = 0; i < conditions; i++) {
    const labels = Array.from({ length: fanout }, (_, k) => `to${k}`);
    nodes.push(conditionNode(`c${i}`, labels));
    for (let k = 0; k < fanout; k++) edges.push(edgeOf(`c${i}`, `c${(i + 1 + k) % conditions}`, `to${k}`));
  }
  for (let i = 0; i < tail; i++) {
    nodes.push(codeNode(`t${i}`, i === 0 || i === tail - 1 ? ["a"] : []));
    if (i > 0) edges.push(edgeOf(`t${i - 1}`, `t${i}`));
  }
  return { name: `router mesh ${conditions}x${fanout} + ${tail}`, state: STATE, nodes, edges };
}

/**
 * `count` Joins in sequence: p0 → `width` branches → j0 → p1 → … → j(count-1) → p(count). Every
 * p writes `a`; each runs in its own phase, so nothing clashes.
 */
export function joinPhases(count: number, width: number): Doc {
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [edgeOf("start", "p0_w")];
  for (let k = 0; k <= count; k++) {
    nodes.push(codeNode(`p${k}_w`, ["a"]));
    if (k === count) break;
    nodes.push({ id: `j${k}`, type: "join", position: at, data: {} });
    for (let b = 0; b < width; b++) {
      nodes.push(codeNode(`b${k}_${b}`, ["log"]));
      edges.push(edgeOf(`p${k}_w`, `b${k}_${b}`), edgeOf(`b${k}_${b}`, `j${k}`));
    }
    edges.push(edgeOf(`j${k}`, `p${k + 1}_w`));
  }
  return { name: `join phases ${count}x${width}`, state: STATE, nodes, edges };
}

/**
 * A chain of `joins` Join phases that all start the same busy mesh of `conditions` Conditions:
 * j(k) → {a(k), b(k)} → j(k+1), and j(k) → the mesh, which leads to no Join. Every phase walks the
 * whole mesh for hundreds of supersteps, so walking the phases one by one costs
 * joins × supersteps × mesh edges: past the budget, the combined phase takes over. Each a(k)
 * writes `a`; in its own phase it runs alone.
 */
export function joinStorm(joins: number, conditions: number, fanout: number): Doc {
  const mesh = routerMesh(conditions, fanout, 0);
  const nodes: Doc["nodes"] = mesh.nodes.slice();
  const edges: Doc["edges"] = mesh.edges.filter((e) => e.source !== "start");
  nodes.push(codeNode("a_s"), codeNode("b_s"));
  edges.push(edgeOf("start", "a_s"), edgeOf("start", "b_s"), edgeOf("a_s", "j0"), edgeOf("b_s", "j0"));
  for (let k = 0; k < joins; k++) {
    nodes.push({ id: `j${k}`, type: "join", position: at, data: {} });
    edges.push(edgeOf(`j${k}`, "c0"));
    if (k + 1 === joins) break;
    nodes.push(codeNode(`a${k}`, ["a"]), codeNode(`b${k}`));
    edges.push(
      edgeOf(`j${k}`, `a${k}`),
      edgeOf(`j${k}`, `b${k}`),
      edgeOf(`a${k}`, `j${k + 1}`),
      edgeOf(`b${k}`, `j${k + 1}`),
    );
  }
  return { name: `join storm ${joins} over ${conditions}x${fanout}`, state: STATE, nodes, edges };
}

/**
 * Rings of Join phases whose lengths are the given primes, all started at once: j → a Condition →
 * x → {a, b} → next j around each ring. The set of Joins waiting together only repeats after the
 * product of the lengths (about 10^16 phases for the primes up to 41), so only the budget ends
 * the phase-by-phase walk. Ring r's `a` nodes write field `f<r>`; one ring's phases never overlap,
 * so the exact answer is "valid", but the combined phase that takes over past the budget starts
 * every Join at once and reports clashes it cannot rule out.
 */
export function joinRings(lengths: number[]): Doc {
  const nodes: Doc["nodes"] = [];
  const edges: Doc["edges"] = [];
  for (const [r, length] of lengths.entries()) {
    const p = `r${r}`;
    nodes.push(codeNode(`${p}s1`), codeNode(`${p}s2`));
    edges.push(
      edgeOf("start", `${p}s1`),
      edgeOf("start", `${p}s2`),
      edgeOf(`${p}s1`, `${p}j0`),
      edgeOf(`${p}s2`, `${p}j0`),
    );
    for (let k = 0; k < length; k++) {
      const next = `${p}j${(k + 1) % length}`;
      nodes.push(
        { id: `${p}j${k}`, type: "join", position: at, data: {} },
        conditionNode(`${p}c${k}`, ["go", "stop"]),
        codeNode(`${p}x${k}`),
        codeNode(`${p}a${k}`, [`f${r}`]),
        codeNode(`${p}b${k}`),
      );
      edges.push(
        edgeOf(`${p}j${k}`, `${p}c${k}`),
        edgeOf(`${p}c${k}`, `${p}x${k}`, "go"),
        edgeOf(`${p}c${k}`, "end", "stop"),
        edgeOf(`${p}x${k}`, `${p}a${k}`),
        edgeOf(`${p}x${k}`, `${p}b${k}`),
        edgeOf(`${p}a${k}`, next),
        edgeOf(`${p}b${k}`, next),
      );
    }
  }
  const state: Doc["state"] = [...STATE, ...lengths.map((_, r) => ({ name: `f${r}`, type: "any" }))];
  return { name: `join rings ${lengths.join("+")}`, state, nodes, edges };
}
