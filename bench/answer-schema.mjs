// Structured-answer schemas (backend/src/engine/providers/answer-schema.ts): what checking an
// author's schema (once per schema and process: meta-schema, limits, compiling with Ajv) and a
// model's answer cost at the limits. Prints figures; asserts nothing. Run after `npm run build`.
import {
  answerSchemaProblem,
  checkAnswer,
  MAX_ANSWER_SCHEMA_BYTES,
  MAX_ANSWER_SCHEMA_NODES,
  MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION,
} from "../backend/dist/engine/providers/answer-schema.js";
import { validateWorkflow } from "../backend/dist/engine/validator/validator.js";
import { benchArgs } from "./bench-args.mjs";

benchArgs("node bench/answer-schema.mjs   (after npm run build; takes no options)");

const ms = (start) => (performance.now() - start).toFixed(1);

function containers(value) {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== "object") continue;
    count++;
    stack.push(...Object.values(item));
  }
  return count;
}

/** The largest `make(n)` that the limits accept. */
function largest(make) {
  const fits = (n) => {
    const schema = make(n);
    return containers(schema) <= MAX_ANSWER_SCHEMA_NODES && JSON.stringify(schema).length <= MAX_ANSWER_SCHEMA_BYTES;
  };
  let low = 1;
  while (fits(low * 2)) low *= 2;
  let high = low * 2;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return make(low);
}

const range = (n, f) => Object.fromEntries(Array.from({ length: n }, (_, i) => f(i)));
// Shapes that cost Ajv the most per object, each as large as the limits allow; `tag` keeps every
// compile a cold one (the cache is keyed by the schema's text).
const shapes = {
  "flat properties": (n, tag) => ({
    type: "object",
    description: tag,
    properties: range(n, (i) => [`field_${i}`, { type: "string", maxLength: 200, description: "a field" }]),
    required: [],
  }),
  "nested objects": (n, tag) => {
    let schema = { type: "string", description: tag };
    for (let i = 0; i < 15; i++)
      schema = { type: "object", properties: { a: schema, ...range(n, (j) => [`b${i}_${j}`, { type: "number" }]) } };
    return schema;
  },
  "many $ref to one $defs entry": (n, tag) => ({
    type: "object",
    description: tag,
    properties: range(n, (i) => [`f${i}`, { $ref: "#/$defs/item" }]),
    $defs: { item: { type: "object", properties: { a: { type: "string" }, b: { enum: [1, 2, 3] } } } },
  }),
  "$dynamicRef everywhere": (n, tag) => ({
    type: "object",
    description: tag,
    $dynamicAnchor: "node",
    properties: range(n, (i) => [`f${i}`, { $dynamicRef: "#node" }]),
  }),
  "unevaluatedProperties over anyOf": (n, tag) => ({
    type: "object",
    description: tag,
    unevaluatedProperties: false,
    anyOf: Array.from({ length: n }, (_, i) => ({ properties: { [`p${i}`]: { type: "string" } } })),
  }),
  "if/then/else": (n, tag) => ({
    type: "object",
    description: tag,
    allOf: Array.from({ length: n }, (_, i) => ({
      if: { properties: { [`a${i}`]: { const: i } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      then: { required: [`b${i}`] },
      else: { required: [`c${i}`] },
    })),
  }),
};

let start = performance.now();
answerSchemaProblem({ type: "object", properties: { warm: { type: "string" } } });
console.log(`first schema in a process (compiles the 2020-12 meta-schema once): ${ms(start)} ms`);
console.log(`limits: ${MAX_ANSWER_SCHEMA_NODES} objects and arrays, ${MAX_ANSWER_SCHEMA_BYTES / 1024} KiB`);

let slowest = 0;
for (const [name, make] of Object.entries(shapes)) {
  const times = [];
  let shape = null;
  for (let round = 0; round < 4; round++) {
    const schema = largest((n) => make(n, `${name} ${round}`));
    shape ??= `${containers(schema)} objects/arrays, ${JSON.stringify(schema).length} characters`;
    start = performance.now();
    const problem = answerSchemaProblem(schema);
    times.push(performance.now() - start);
    if (problem) throw new Error(`${name}: ${problem}`);
  }
  const [first, ...warm] = times;
  const best = Math.min(...warm);
  slowest = Math.max(slowest, ...warm);
  console.log(
    `${name} (${shape}): checked and compiled in ${first.toFixed(1)} ms cold, best of 3 warm ${best.toFixed(1)} ms`,
  );
}
console.log(`slowest warm check of a schema at the limits: ${slowest.toFixed(1)} ms (once per schema and process)`);

const flat = largest((n) => shapes["flat properties"](n, "answer"));
start = performance.now();
for (let i = 0; i < 1000; i++) answerSchemaProblem(flat);
console.log(`the same schema again (cached), per check: ${(Number(ms(start)) / 1000).toFixed(4)} ms`);
const answer = Object.fromEntries(Object.keys(flat.properties).map((key) => [key, "x".repeat(100)]));
checkAnswer(answer, flat);
start = performance.now();
for (let i = 0; i < 100; i++) checkAnswer(answer, flat);
console.log(
  `an answer with all ${Object.keys(answer).length} properties checked: ${(Number(ms(start)) / 100).toFixed(3)} ms`,
);

const long = 1_000_000;
for (const format of ["date-time", "duration", "email", "hostname", "uri", "ipv6"]) {
  const schema = { type: "object", properties: { v: { type: "string", format } } };
  answerSchemaProblem(schema);
  start = performance.now();
  const found = checkAnswer({ v: `${"1a.@".repeat(long / 4)}!` }, schema);
  console.log(`format ${format} on a 1,000,000-character answer: ${ms(start)} ms (${found.length} problem)`);
}

// One validation at the per-call budget: a workflow whose LLM nodes carry as many of the costliest
// schemas (flat properties at the limits, none compiled before) as the budget allows.
const perSchema = containers(flat);
const count = Math.floor(MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION / perSchema);
const document = {
  name: "schemas at the budget",
  state: [{ name: "answer", type: "object" }],
  nodes: Array.from({ length: count }, (_, n) => ({
    id: `ask${n}`,
    type: "llm",
    position: { x: 0, y: 0 },
    data: {
      model: "gpt-4o-mini",
      base_url: "http://127.0.0.1:1/v1",
      prompt: "?",
      json_schema: largest((k) => shapes["flat properties"](k, `budget ${n}`)),
      output_field: "answer",
    },
  })),
  edges: Array.from({ length: count }, (_, n) => ({
    id: `e${n}`,
    source: n ? `ask${n - 1}` : "start",
    target: `ask${n}`,
  })),
};
const environment = {
  codeMode: "off",
  providers: {
    openai: { configured: true, variable: "OPENAI_API_KEY" },
    anthropic: { configured: true, variable: "ANTHROPIC_API_KEY" },
  },
  serverKeyNeeded: () => false,
  smtpConfigured: true,
  maxSubgraphDepth: 5,
  credentialType: async () => undefined,
  resolveWorkflow: async () => undefined,
};
start = performance.now();
const result = await validateWorkflow(document, environment);
console.log(
  `a workflow with ${count} such schemas (${count * perSchema} of the ${MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION} objects and arrays one validation may compile): validated in ${ms(start)} ms, ${result.ok ? "valid" : "not valid"}, the event loop given back ${result.stats.pauses} times`,
);
