// Structured-answer schemas: answers checked with Ajv, schemas from workflow authors refused when
// they are not valid, too large, or would run regular expressions on the server.
import { describe, expect, it } from "vitest";
import type { ValidationEnvironment } from "../validator/validator.js";
import { validateWorkflow } from "../validator/validator.js";
import {
  answerSchemaProblem,
  checkAnswer,
  compiledAnswerSchemas,
  MAX_ANSWER_PROBLEMS,
  MAX_ANSWER_SCHEMA_BYTES,
  MAX_ANSWER_SCHEMA_DEPTH,
  MAX_ANSWER_SCHEMA_NODES,
  MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION,
} from "./answer-schema.js";

const VERDICT = {
  type: "object",
  properties: {
    verdict: { type: "string", enum: ["yes", "no"] },
    score: { type: "number", minimum: 0, maximum: 1 },
    tags: { type: "array", items: { type: ["string", "null"] }, maxItems: 3 },
    source: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
  },
  required: ["verdict", "score"],
  additionalProperties: false,
};

describe("answers", () => {
  it("accepts an answer that matches", () => {
    expect(
      checkAnswer({ verdict: "yes", score: 0.5, tags: ["a", null], source: { url: "https://x.test/a" } }, VERDICT),
    ).toEqual([]);
  });

  it("lists every problem of an answer, with readable paths", () => {
    expect(
      checkAnswer(
        { verdict: "maybe", score: "high", tags: ["a", 2, "c", "d"], source: { url: "not a uri" }, extra: 1 },
        VERDICT,
      ),
    ).toEqual([
      "$.extra is not allowed",
      '$.verdict should be one of "yes", "no"',
      "$.score should be number, not string",
      "$.tags should NOT have more than 3 items",
      "$.tags[1] should be string or null, not integer",
      '$.source.url should match format "uri"',
    ]);
    expect(checkAnswer({ score: 2 }, VERDICT)).toEqual(["$.verdict is missing", "$.score should be <= 1"]);
  });

  it("names keys that are not identifiers, and array items, in paths", () => {
    const schema = {
      type: "object",
      properties: { "odd key": { type: "array", items: { type: "object", required: ["a b"] } } },
    };
    expect(checkAnswer({ "odd key": [{}, { "a b": 1 }] }, schema)).toEqual(['$["odd key"][0]["a b"] is missing']);
  });

  it("checks const, oneOf and $ref to $defs", () => {
    const schema = {
      type: "object",
      properties: { kind: { const: "point" }, at: { $ref: "#/$defs/pair" } },
      $defs: { pair: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false } },
    };
    expect(checkAnswer({ kind: "point", at: [1, 2] }, schema)).toEqual([]);
    expect(checkAnswer({ kind: "line", at: [1, "2", 3] }, schema)).toEqual([
      '$.kind should be "point"',
      "$.at[1] should be number, not string",
      "$.at should NOT have more than 2 items",
    ]);
  });

  it("lists at most MAX_ANSWER_PROBLEMS problems, then counts the rest", () => {
    const schema = { type: "object", properties: { list: { type: "array", items: { type: "string" } } } };
    const problems = checkAnswer({ list: Array.from({ length: 50 }, (_, i) => i) }, schema);
    expect(problems).toHaveLength(MAX_ANSWER_PROBLEMS + 1);
    expect(problems.at(-1)).toBe(`and ${50 - MAX_ANSWER_PROBLEMS} more problems`);
  });

  it("checks the supported formats", () => {
    const formats: [string, string[], string[]][] = [
      ["date", ["2024-02-29"], ["2023-02-29", "2024-13-01", "24-01-01"]],
      ["time", ["23:59:60Z", "08:30:00.25+07:00"], ["24:00:00Z", "08:30:00", "08:30:00+25:00"]],
      ["date-time", ["2024-02-29T12:00:00Z", "2024-02-29 12:00:00-05:00"], ["2024-02-29", "2024-02-30T12:00:00Z"]],
      ["duration", ["P1Y2M3DT4H5M6S", "P3W", "PT1S"], ["P", "PT", "P1YT", "1Y"]],
      ["email", ["ann@example.com"], ["ann@", "@example.com", "a b@example.com", "ann@localhost"]],
      ["hostname", ["example.com", "a-b.c"], ["-a.com", "a..b", `${"a".repeat(64)}.com`]],
      ["ipv4", ["192.0.2.1"], ["192.0.2.256", "1.2.3"]],
      ["ipv6", ["2001:db8::1"], ["2001:db8:::1"]],
      ["uuid", ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567e89b12d3a456426614174000"]],
      ["uri", ["https://example.com/a?b#c", "urn:isbn:0451450523"], ["/relative", "has space:x"]],
    ];
    for (const [format, good, bad] of formats) {
      const schema = { type: "object", properties: { v: { type: "string", format } } };
      for (const value of good) expect(checkAnswer({ v: value }, schema), `${format} ${value}`).toEqual([]);
      for (const value of bad)
        expect(checkAnswer({ v: value }, schema), `${format} ${value}`).toEqual([
          `$.v should match format "${format}"`,
        ]);
    }
  });

  it("checks long adversarial strings against every format (linear-time checks, no backtracking)", () => {
    // Inputs that make backtracking regexes explode: long runs that fail at the very end.
    const long = 200_000;
    const inputs = [
      `${"a".repeat(long)}!`,
      `${"1".repeat(long)}X`,
      `P${"1".repeat(long)}X`,
      `${"a.".repeat(long / 2)}-`,
      `${"a@".repeat(long / 2)}`,
      `x:${" ".repeat(long)}`,
    ];
    for (const format of [
      "date",
      "time",
      "date-time",
      "duration",
      "email",
      "hostname",
      "ipv4",
      "ipv6",
      "uuid",
      "uri",
    ]) {
      const schema = { type: "object", properties: { v: { type: "string", format } } };
      for (const value of inputs)
        expect(checkAnswer({ v: value }, schema)).toEqual([`$.v should match format "${format}"`]);
    }
  });

  it("compiles a schema once and keeps a bounded number of them", () => {
    const schema = { type: "object", properties: { once: { type: "integer" } } };
    const before = compiledAnswerSchemas();
    checkAnswer({ once: 1 }, schema);
    checkAnswer({ once: 2 }, { ...schema });
    expect(answerSchemaProblem(schema)).toBeNull();
    expect(compiledAnswerSchemas()).toBe(Math.min(before + 1, 256));
    for (let i = 0; i < 300; i++) answerSchemaProblem({ type: "object", properties: { [`f${i}`]: {} } });
    expect(compiledAnswerSchemas()).toBe(256);
  });
});

describe("schemas refused", () => {
  const refused: [string, Record<string, unknown>, string][] = [
    ["a schema that is not an object's", { type: "array" }, 'must describe an object ("type": "object")'],
    ["no type at all", { properties: { a: {} } }, 'must describe an object ("type": "object")'],
    [
      "an unknown type",
      { type: "object", properties: { a: { type: "strin" } } },
      "is not valid JSON Schema (2020-12) at /properties/a/type: must be equal to one of the allowed values",
    ],
    ["a misspelt keyword", { type: "object", require: ["a"] }, 'cannot be used: unknown keyword: "require"'],
    [
      "a $ref that leads nowhere",
      { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      "cannot be used: can't resolve reference #/$defs/missing",
    ],
    [
      "a $ref to another document (never fetched)",
      { type: "object", properties: { a: { $ref: "https://schemas.example/a.json" } } },
      "cannot be used: can't resolve reference https://schemas.example/a.json",
    ],
    [
      "another draft",
      { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
      'names "$schema": "http://json-schema.org/draft-07/schema#"; only JSON Schema 2020-12 is read here',
    ],
    ["$async", { $async: true, type: "object" }, 'uses "$async", which is not accepted'],
    [
      "an unknown format",
      { type: "object", properties: { a: { type: "string", format: "regex" } } },
      'uses the format "regex", which is not checked here; use one of date, time, date-time',
    ],
  ];
  it.each(refused)("refuses %s", (_name, schema, message) => {
    expect(answerSchemaProblem(schema)).toContain(message);
    expect(() => checkAnswer({}, schema)).toThrow(message);
  });

  it("refuses a schema larger than MAX_ANSWER_SCHEMA_BYTES", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: "string", description: "x".repeat(20) }]),
    );
    expect(JSON.stringify(properties).length).toBeGreaterThan(MAX_ANSWER_SCHEMA_BYTES);
    expect(answerSchemaProblem({ type: "object", properties })).toMatch(/^is larger than 64 KiB \(\d+ characters\)$/);
  });

  it("refuses a schema with more than MAX_ANSWER_SCHEMA_NODES objects and arrays (they bound the compile time)", () => {
    const schemaOf = (count: number) => ({
      type: "object",
      properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, { type: "number" }])),
    });
    // The schema itself and its `properties` are two; each property one more.
    expect(answerSchemaProblem(schemaOf(MAX_ANSWER_SCHEMA_NODES - 2))).toBeNull();
    expect(answerSchemaProblem(schemaOf(MAX_ANSWER_SCHEMA_NODES - 1))).toBe(
      `holds more than ${MAX_ANSWER_SCHEMA_NODES} objects and arrays; split the answer over several nodes`,
    );
  });

  it("compiles the longest chain of $refs the limits allow, and checks answers against it", () => {
    const $defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let i = 1; i < 120; i++) $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}` }, { type: "null" }] };
    const schema = { type: "object", properties: { a: { $ref: "#/$defs/d119" } }, $defs };
    expect(answerSchemaProblem(schema)).toBeNull();
    expect(checkAnswer({ a: "text" }, schema)).toEqual([]);
    const problems = checkAnswer({ a: 5 }, schema);
    expect(problems.slice(0, 2)).toEqual(["$.a should be string, not integer", "$.a should be null, not integer"]);
    expect(problems).toHaveLength(MAX_ANSWER_PROBLEMS + 1);
  });

  it("refuses a schema nested deeper than MAX_ANSWER_SCHEMA_DEPTH", () => {
    let inner: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < MAX_ANSWER_SCHEMA_DEPTH; i++) inner = { type: "object", properties: { a: inner } };
    expect(answerSchemaProblem(inner)).toBe(
      `nests objects and arrays more than ${MAX_ANSWER_SCHEMA_DEPTH} levels deep`,
    );
    // A schema one level per `properties` wrapper: 15 wrappers are 31 levels of JSON.
    let fits: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 15; i++) fits = { type: "object", properties: { a: fits } };
    expect(answerSchemaProblem(fits)).toBeNull();
  });
});

describe("hostile schemas", () => {
  const evil = "^(a+)+$";
  const hostile: [string, Record<string, unknown>, string][] = [
    [
      "pattern on a property",
      { type: "object", properties: { a: { type: "string", pattern: evil } } },
      " at /properties/a",
    ],
    [
      "pattern in array items",
      { type: "object", properties: { a: { type: "array", items: { pattern: evil } } } },
      " at /properties/a/items",
    ],
    ["pattern in propertyNames", { type: "object", propertyNames: { pattern: evil } }, " at /propertyNames"],
    [
      "pattern in $defs",
      { type: "object", properties: { a: { $ref: "#/$defs/s" } }, $defs: { s: { pattern: evil } } },
      " at /$defs/s",
    ],
    [
      "pattern in a dependent schema",
      { type: "object", dependentSchemas: { a: { properties: { b: { pattern: evil } } } } },
      " at /dependentSchemas/a/properties/b",
    ],
    [
      "pattern inside anyOf",
      { type: "object", anyOf: [{ properties: { a: { pattern: evil } } }] },
      " at /anyOf/0/properties/a",
    ],
  ];
  it.each(hostile)("refuses %s, saying where", (_name, schema, where) => {
    expect(answerSchemaProblem(schema)).toBe(
      `uses "pattern"${where}, which is not accepted: a regular expression from a workflow could stall the server; describe the expected text in "description" instead`,
    );
  });

  it("refuses patternProperties", () => {
    expect(answerSchemaProblem({ type: "object", patternProperties: { [evil]: { type: "string" } } })).toContain(
      'uses "patternProperties", which is not accepted',
    );
  });

  it("leaves alone a $defs entry nothing refers to: it is never compiled, so its pattern never runs", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, $defs: { unused: { pattern: evil } } };
    expect(answerSchemaProblem(schema)).toBeNull();
    expect(checkAnswer({ a: `${"a".repeat(50_000)}!` }, schema)).toEqual([]);
  });

  it("accepts a property that is merely named pattern", () => {
    const schema = { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] };
    expect(answerSchemaProblem(schema)).toBeNull();
    expect(checkAnswer({ pattern: 1 }, schema)).toEqual(["$.pattern should be string, not integer"]);
  });

  it("keeps each schema's $id to itself: another schema cannot $ref it", () => {
    const first = { $id: "https://shared.example/answer", type: "object", properties: { a: { type: "string" } } };
    const second = { $id: "https://shared.example/answer", type: "object", properties: { b: { type: "number" } } };
    expect(answerSchemaProblem(first)).toBeNull();
    expect(answerSchemaProblem(second)).toBeNull();
    expect(checkAnswer({ a: 1 }, first)).toEqual(["$.a should be string, not integer"]);
    expect(checkAnswer({ b: "x" }, second)).toEqual(["$.b should be number, not string"]);
    const borrower = { type: "object", properties: { c: { $ref: "https://shared.example/answer" } } };
    expect(answerSchemaProblem(borrower)).toContain("can't resolve reference https://shared.example/answer");
  });
});

describe("in a workflow", () => {
  const env: ValidationEnvironment = {
    codeMode: "wasm",
    providers: {
      openai: { configured: true, variable: "OPENAI_API_KEY" },
      anthropic: { configured: true, variable: "ANTHROPIC_API_KEY" },
    },
    serverKeyNeeded: () => true,
    smtpConfigured: true,
    maxSubgraphDepth: 3,
    resolveWorkflow: async () => undefined,
    credentialType: async () => undefined,
  };
  const llm = (jsonSchema: Record<string, unknown>) => ({
    name: "structured",
    state: [{ name: "answer", type: "object" }],
    nodes: [
      {
        id: "ask",
        type: "llm",
        position: { x: 0, y: 0 },
        data: { model: "gpt-4o-mini", prompt: "Judge it.", json_schema: jsonSchema, output_field: "answer" },
      },
    ],
    edges: [{ id: "e", source: "start", target: "ask" }],
  });

  it("accepts a valid schema", async () => {
    expect((await validateWorkflow(llm(VERDICT), env)).ok).toBe(true);
  });

  it("refuses a hostile or invalid schema with NODE_DATA_INVALID at the node's json_schema", async () => {
    const result = await validateWorkflow(
      llm({ type: "object", properties: { a: { type: "string", pattern: "^(a|a)*$" } } }),
      env,
    );
    expect(result.ok ? [] : result.problems).toEqual([
      {
        code: "NODE_DATA_INVALID",
        node_id: "ask",
        path: "nodes.0.data.json_schema",
        message:
          'nodes.0.data.json_schema: the schema uses "pattern" at /properties/a, which is not accepted: a regular expression from a workflow could stall the server; describe the expected text in "description" instead',
      },
    ]);
    const invalid = await validateWorkflow(llm({ type: "object", properties: { a: { type: 5 } } }), env);
    expect(invalid.ok ? [] : invalid.problems.map((p) => p.message)).toEqual([
      "nodes.0.data.json_schema: the schema is not valid JSON Schema (2020-12) at /properties/a/type: must be equal to one of the allowed values",
    ]);
  });

  it("budgets the schemas one validation compiles; the answer does not depend on the cache", async () => {
    // Schemas of 499 objects and arrays each (the schema, its properties, 497 properties).
    const big = (n: number) => ({
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 497 }, (_, i) => [`n${n}_f${i}`, { type: "number" }])),
    });
    const fits = Math.floor(MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION / 499);
    const document = {
      name: "many schemas",
      state: [{ name: "answer", type: "object", reducer: "merge" }],
      nodes: Array.from({ length: fits + 1 }, (_, n) => ({
        id: `ask${n}`,
        type: "llm",
        position: { x: 0, y: 0 },
        data: { model: "gpt-4o-mini", prompt: "Judge it.", json_schema: big(n), output_field: "answer" },
      })),
      edges: Array.from({ length: fits + 1 }, (_, n) => ({
        id: `e${n}`,
        source: n === 0 ? "start" : `ask${n - 1}`,
        target: `ask${n}`,
      })),
    };
    for (let round = 0; round < 2; round++) {
      const result = await validateWorkflow(document, env);
      expect(result.ok ? [] : result.problems).toEqual([
        {
          code: "NODE_DATA_INVALID",
          node_id: `ask${fits}`,
          path: `nodes.${fits}.data.json_schema`,
          message: `nodes.${fits}.data.json_schema: the structured-answer schemas of this workflow and its subgraphs hold more than 4,000 objects and arrays together; make them smaller or use fewer`,
        },
      ]);
    }
    // One fewer node fits.
    const smaller = { ...document, nodes: document.nodes.slice(0, fits), edges: document.edges.slice(0, fits) };
    expect((await validateWorkflow(smaller, env)).ok).toBe(true);
  });
});
