import { describe, expect, it } from "vitest";
import { fanOut, nestedSubgraphs, prompts } from "../../../test/adversarial-workflows.js";
import { VALIDATION_CATALOG, type ValidationCode } from "../../core/errors.js";
import { MAX_PROBLEMS, MAX_SUBGRAPH_PROBLEMS } from "./problem-list.js";
import { MAX_SUBGRAPH_VALIDATIONS } from "./validation-run.js";
import { type Problem, type ValidationEnvironment, validateWorkflow } from "./validator.js";

type Doc = Record<string, unknown>;

function env(overrides: Partial<ValidationEnvironment> = {}, saved: Record<string, Doc> = {}): ValidationEnvironment {
  return {
    codeMode: "wasm",
    providers: {
      openai: { configured: true, variable: "OPENAI_API_KEY" },
      anthropic: { configured: false, variable: "ANTHROPIC_API_KEY" },
    },
    // The server's key goes only to the provider's own endpoint: a node's base_url needs none.
    serverKeyNeeded: (_provider, baseUrl) => baseUrl === undefined,
    smtpConfigured: true,
    maxSubgraphDepth: 3,
    resolveWorkflow: async (id, version) => saved[`${id}@${version}`],
    credentialType: async (id) => STORED_CREDENTIALS[id],
    ...overrides,
  };
}

/** The caller's stored credentials, by id. */
const STORED_CREDENTIALS: Record<string, "openai" | "anthropic" | "http_bearer" | "smtp"> = {
  "cred-anthropic": "anthropic",
  "cred-bearer": "http_bearer",
  "cred-smtp": "smtp",
};

const pos = { x: 0, y: 0 };
const node = (id: string, type: string, data: Doc = {}) => ({ id, type, position: pos, data });
const edge = (source: string, target: string, label?: string) => ({
  id: `${source}-${target}${label ? `-${label}` : ""}`,
  source,
  target,
  ...(label ? { label } : {}),
});
const code = (id: string, outputs?: string[]) =>
  node(id, "code", {
    language: "javascript",
    code: "function main(s) { return {}; }",
    ...(outputs ? { outputs } : {}),
  });

async function problems(document: Doc, environment = env()): Promise<Problem[]> {
  const result = await validateWorkflow(document, environment);
  return result.ok ? [] : result.problems;
}

async function codes(document: Doc, environment = env()): Promise<ValidationCode[]> {
  return (await problems(document, environment)).map((p) => p.code);
}

const valid = {
  name: "ok",
  state: [{ name: "a", type: "string" }],
  nodes: [code("c1", ["a"])],
  edges: [edge("start", "c1"), edge("c1", "end")],
};

describe("workflow validator", () => {
  it("accepts a valid workflow with implicit start and end", async () => {
    const result = await validateWorkflow(valid, env());
    expect(result.ok).toBe(true);
  });

  it("reports schema problems with their path", async () => {
    const found = await problems({ name: "", nodes: [{ id: "x" }] });
    expect(found.every((p) => p.code === "DOCUMENT_SCHEMA")).toBe(true);
    expect(found.map((p) => p.path)).toEqual(expect.arrayContaining(["name", "nodes.0.type"]));
  });

  const cases: [string, Doc, ValidationCode, ValidationEnvironment?][] = [
    [
      "node data that does not fit its type",
      { ...valid, nodes: [node("c1", "code", { language: "cobol", code: "x" })] },
      "NODE_DATA_INVALID",
    ],
    ["duplicate node ids", { ...valid, nodes: [code("c1"), code("c1")] }, "DUPLICATE_NODE_ID"],
    ["duplicate edge ids", { ...valid, edges: [edge("start", "c1"), edge("start", "c1")] }, "DUPLICATE_EDGE_ID"],
    [
      "duplicate state fields",
      {
        ...valid,
        state: [
          { name: "a", type: "string" },
          { name: "a", type: "number" },
        ],
      },
      "DUPLICATE_STATE_FIELD",
    ],
    ["a reserved id", { ...valid, nodes: [code("c1"), code("end")] }, "RESERVED_NODE_ID"],
    [
      "an id LangGraph refuses",
      { ...valid, nodes: [code("c1"), code("constructor")], edges: [...valid.edges, edge("c1", "constructor")] },
      "RESERVED_NODE_ID",
    ],
    [
      "a hidden-channel id",
      { ...valid, nodes: [code("c1"), code("__gather_x__")], edges: [...valid.edges, edge("c1", "__gather_x__")] },
      "RESERVED_NODE_ID",
    ],
    [
      "a node id equal to a state field",
      { ...valid, nodes: [code("c1"), code("a")], edges: [...valid.edges, edge("c1", "a")] },
      "NODE_ID_IS_STATE_FIELD",
    ],
    ["no start", { ...valid, edges: [edge("c1", "end")] }, "START_MISSING"],
    [
      "two start nodes",
      {
        ...valid,
        nodes: [node("s1", "start"), node("s2", "start"), code("c1")],
        edges: [edge("s1", "c1"), edge("s2", "c1")],
      },
      "START_MULTIPLE",
    ],
    [
      "two end nodes",
      {
        ...valid,
        nodes: [code("c1"), node("e1", "end"), node("e2", "end")],
        edges: [edge("start", "c1"), edge("c1", "e1"), edge("c1", "e2")],
      },
      "END_MULTIPLE",
    ],
    ["a dangling edge source", { ...valid, edges: [...valid.edges, edge("ghost", "c1")] }, "EDGE_SOURCE_UNKNOWN"],
    ["a dangling edge target", { ...valid, edges: [...valid.edges, edge("c1", "ghost")] }, "EDGE_TARGET_UNKNOWN"],
    ["an edge into start", { ...valid, edges: [...valid.edges, edge("c1", "start")] }, "EDGE_INTO_START"],
    ["an edge out of end", { ...valid, edges: [...valid.edges, edge("end", "c1")] }, "EDGE_OUT_OF_END"],
    ["an unreachable node", { ...valid, nodes: [code("c1"), code("c2")] }, "NODE_UNREACHABLE"],
    ["a self-loop", { ...valid, edges: [...valid.edges, edge("c1", "c1")] }, "LOOP_UNGUARDED"],
    [
      "a loop without a condition",
      { ...valid, nodes: [code("c1"), code("c2")], edges: [edge("start", "c1"), edge("c1", "c2"), edge("c2", "c1")] },
      "LOOP_UNGUARDED",
    ],
    [
      "a condition without edges",
      {
        ...valid,
        nodes: [code("c1"), node("k", "condition", { rules: [], default_label: "x" })],
        edges: [...valid.edges, edge("c1", "k")],
      },
      "ROUTE_NEEDS_EDGES",
    ],
    [
      "an unlabelled condition edge",
      {
        ...valid,
        nodes: [code("c1"), node("k", "condition", { rules: [], default_label: "x" })],
        edges: [edge("start", "k"), edge("k", "c1", "x"), edge("k", "end")],
      },
      "ROUTE_EDGE_UNLABELED",
    ],
    [
      "duplicate labels",
      {
        ...valid,
        nodes: [code("c1"), node("k", "condition", { rules: [], default_label: "x" })],
        edges: [edge("start", "k"), edge("k", "c1", "x"), { ...edge("k", "end", "x"), id: "dup" }],
      },
      "ROUTE_LABEL_DUPLICATE",
    ],
    [
      "a rule naming a missing label",
      {
        ...valid,
        nodes: [
          code("c1"),
          node("k", "condition", {
            rules: [{ label: "big", conditions: [{ field: "a", operator: "is_empty" }] }],
            default_label: "x",
          }),
        ],
        edges: [edge("start", "k"), edge("k", "c1", "x")],
      },
      "CONDITION_LABEL_UNKNOWN",
    ],
    [
      "a for each without a done edge",
      {
        name: "fe",
        state: [
          { name: "items", type: "list" },
          { name: "out", type: "list" },
        ],
        nodes: [node("f", "for_each", { items: "{{state.items}}", output_field: "out" }), code("b")],
        edges: [edge("start", "f"), edge("f", "b", "item")],
      },
      "FOR_EACH_EDGES",
    ],
    [
      "a for each body with its own edges",
      {
        name: "fe",
        state: [
          { name: "items", type: "list" },
          { name: "out", type: "list" },
        ],
        nodes: [node("f", "for_each", { items: "{{state.items}}", output_field: "out" }), code("b"), code("c")],
        edges: [edge("start", "f"), edge("f", "b", "item"), edge("f", "c", "done"), edge("b", "c")],
      },
      "FOR_EACH_BODY_INVALID",
    ],
    [
      "a join with one input",
      { ...valid, nodes: [code("c1"), node("j", "join")], edges: [edge("start", "c1"), edge("c1", "j")] },
      "JOIN_NEEDS_INPUTS",
    ],
    [
      "a template that is code",
      {
        ...valid,
        nodes: [node("h", "human", { message: "{{constructor.constructor('x')()}}", output_field: "a" })],
        edges: [edge("start", "h")],
      },
      "TEMPLATE_INVALID",
    ],
    [
      "a reference to an undeclared field",
      {
        ...valid,
        nodes: [node("h", "human", { message: "Hi {{state.nobody}}", output_field: "a" })],
        edges: [edge("start", "h")],
      },
      "STATE_REFERENCE_UNKNOWN",
    ],
    [
      "an output field that is not declared",
      {
        ...valid,
        nodes: [node("h", "human", { message: "Hi", output_field: "nowhere" })],
        edges: [edge("start", "h")],
      },
      "STATE_REFERENCE_UNKNOWN",
    ],
    [
      "{{item}} outside a for each",
      {
        ...valid,
        nodes: [node("h", "human", { message: "{{item}}", output_field: "a" })],
        edges: [edge("start", "h")],
      },
      "ITEM_REFERENCE_OUTSIDE_FOR_EACH",
    ],
    [
      "a replace field written in parallel",
      { ...valid, nodes: [code("c1", ["a"]), code("c2", ["a"])], edges: [edge("start", "c1"), edge("start", "c2")] },
      "PARALLEL_WRITE_NEEDS_REDUCER",
    ],
    [
      "append on a number",
      { ...valid, state: [{ name: "a", type: "number", reducer: "append" }] },
      "REDUCER_TYPE_MISMATCH",
    ],
    [
      "a default of the wrong type",
      { ...valid, state: [{ name: "a", type: "number", default: "one" }] },
      "DEFAULT_TYPE_MISMATCH",
    ],
    [
      "a subgraph that does not exist",
      {
        ...valid,
        nodes: [node("s", "subgraph", { workflow_id: "w-missing", version: 1 })],
        edges: [edge("start", "s")],
      },
      "SUBGRAPH_NOT_FOUND",
    ],
    [
      "more distinct subgraph versions than one validation checks",
      {
        ...valid,
        nodes: Array.from({ length: MAX_SUBGRAPH_VALIDATIONS + 1 }, (_, i) =>
          node(`s${i}`, "subgraph", { workflow_id: `w${i}`, version: 1 }),
        ),
        edges: Array.from({ length: MAX_SUBGRAPH_VALIDATIONS + 1 }, (_, i) => edge(i ? `s${i - 1}` : "start", `s${i}`)),
      },
      "SUBGRAPH_LIMIT_EXCEEDED",
      env(
        {},
        Object.fromEntries(
          Array.from({ length: MAX_SUBGRAPH_VALIDATIONS + 1 }, (_, i) => [
            `w${i}@1`,
            { name: "child", nodes: [], edges: [] },
          ]),
        ),
      ),
    ],
    [
      "more problems than are listed",
      { ...valid, nodes: [code("c1", ["a"]), ...Array.from({ length: MAX_PROBLEMS + 5 }, (_, i) => code(`u${i}`))] },
      "PROBLEMS_TRUNCATED",
    ],
    ["code while code mode is off", valid, "CODE_MODE_OFF", env({ codeMode: "off" })],
    [
      "a provider without a key",
      {
        ...valid,
        nodes: [node("l", "llm", { provider: "anthropic", model: "claude", prompt: "hi", output_field: "a" })],
        edges: [edge("start", "l")],
      },
      "PROVIDER_NOT_CONFIGURED",
    ],
    [
      "email without SMTP",
      {
        ...valid,
        nodes: [node("m", "send_email", { to: "a@example.com", subject: "s", body: "b" })],
        edges: [edge("start", "m")],
      },
      "SMTP_NOT_CONFIGURED",
      env({ smtpConfigured: false }),
    ],
  ];

  it.each(cases)("reports %s", async (_name, document, code, environment) => {
    const found = await problems(document, environment ?? env());
    expect(found.map((p) => p.code)).toContain(code);
    const entry = found.find((p) => p.code === code) as Problem;
    expect(entry.message.length).toBeGreaterThan(0);
  });

  it("has a test case for every validation code", () => {
    const tested = new Set<string>([
      ...cases.map((c) => c[2]),
      "DOCUMENT_SCHEMA",
      "SUBGRAPH_DEPTH_EXCEEDED",
      "SUBGRAPH_CYCLE",
      "SUBGRAPH_FIELD_UNKNOWN",
      // Tested in "credentials" below.
      "CREDENTIAL_NOT_FOUND",
      "CREDENTIAL_TYPE_MISMATCH",
      // Tested in imported-checks.test.ts.
      "IMPORTED_NODE_INVALID",
      "IMPORTED_START_END",
    ]);
    expect(Object.keys(VALIDATION_CATALOG).filter((c) => !tested.has(c))).toEqual([]);
  });

  it("reports every problem at once, not just the first", async () => {
    const found = await codes({
      ...valid,
      nodes: [code("c1"), code("c1"), code("lonely")],
      edges: [edge("start", "c1"), edge("c1", "ghost"), edge("c1", "c1")],
    });
    expect(found).toEqual(
      expect.arrayContaining(["DUPLICATE_NODE_ID", "EDGE_TARGET_UNKNOWN", "NODE_UNREACHABLE", "LOOP_UNGUARDED"]),
    );
  });

  describe("credentials", () => {
    const claude = (data: Doc = {}) => ({
      name: "c",
      state: [{ name: "a", type: "string" }],
      nodes: [node("l", "llm", { provider: "anthropic", model: "claude", prompt: "hi", output_field: "a", ...data })],
      edges: [edge("start", "l")],
    });

    it("runs an Anthropic node on the user's own credential when the server has no key", async () => {
      expect(await codes(claude({ credential_id: "cred-anthropic" }))).toEqual([]);
      expect(await codes(claude())).toEqual(["PROVIDER_NOT_CONFIGURED"]);
    });

    it("needs no server key for a node that names its own endpoint", async () => {
      expect(await codes(claude({ base_url: "http://127.0.0.1:9/" }))).toEqual([]);
    });

    it("reports a credential that does not exist or is another user's", async () => {
      const found = await problems(claude({ credential_id: "someone-elses" }));
      expect(found).toEqual([
        expect.objectContaining({ code: "CREDENTIAL_NOT_FOUND", node_id: "l", path: "data.credential_id" }),
      ]);
    });

    it("reports a credential of the wrong type", async () => {
      const found = await problems(claude({ credential_id: "cred-bearer" }));
      expect(found).toEqual([expect.objectContaining({ code: "CREDENTIAL_TYPE_MISMATCH", node_id: "l" })]);
      expect(found[0]?.message).toContain("http_bearer");
    });

    it("accepts an HTTP tool with a bearer credential and an email node with an SMTP credential", async () => {
      const document = {
        name: "c",
        state: [{ name: "a", type: "any" }],
        nodes: [
          node("t", "tool", {
            kind: "http",
            url: "https://example.com",
            credential_id: "cred-bearer",
            output_field: "a",
          }),
          node("m", "send_email", { to: "x@example.com", subject: "s", body: "b", credential_id: "cred-smtp" }),
        ],
        edges: [edge("start", "t"), edge("t", "m")],
      };
      expect(await codes(document, env({ smtpConfigured: false }))).toEqual([]);
      const wrong = {
        ...document,
        nodes: [node("t", "tool", { kind: "http", url: "https://x", credential_id: "cred-smtp", output_field: "a" })],
        edges: [edge("start", "t")],
      };
      expect(await codes(wrong)).toEqual(["CREDENTIAL_TYPE_MISMATCH"]);
    });
  });

  describe("parallel writes", () => {
    const fanOut = (reducer?: string, type = "list") => ({
      name: "p",
      state: [{ name: "a", type, ...(reducer ? { reducer } : {}) }],
      nodes: [code("c1", ["a"]), code("c2", ["a"])],
      edges: [edge("start", "c1"), edge("start", "c2"), edge("c1", "end"), edge("c2", "end")],
    });

    it.each([
      ["append", "list"],
      ["merge", "object"],
      ["add", "number"],
    ])("accepts a parallel write with %s", async (reducer, type) => {
      expect(await codes(fanOut(reducer, type))).toEqual([]);
    });

    it("accepts condition branches that write the same field (only one runs)", async () => {
      const document = {
        name: "if-else",
        state: [{ name: "a", type: "string" }],
        nodes: [
          node("k", "condition", {
            rules: [{ label: "yes", conditions: [{ field: "a", operator: "is_empty" }] }],
            default_label: "no",
          }),
          code("c1", ["a"]),
          code("c2", ["a"]),
        ],
        edges: [edge("start", "k"), edge("k", "c1", "yes"), edge("k", "c2", "no")],
      };
      expect(await codes(document)).toEqual([]);
    });

    it("accepts branches of uneven length that never share a superstep", async () => {
      const document = {
        name: "uneven",
        state: [{ name: "a", type: "string" }],
        nodes: [code("b1"), code("b2", ["a"]), code("c1", ["a"])],
        edges: [edge("start", "b1"), edge("b1", "b2"), edge("start", "c1")],
      };
      // b2 runs at step 2, c1 at step 1: no clash.
      expect(await codes(document)).toEqual([]);
    });
  });

  describe("subgraphs", () => {
    const child = {
      name: "child",
      state: [{ name: "x", type: "string" }],
      nodes: [code("c", ["x"])],
      edges: [edge("start", "c")],
    };
    const parentOf = (id: string, input: Doc = { x: "{{state.a}}" }) => ({
      ...valid,
      // Each parent is also a possible child, so it declares the child's field too.
      state: [
        { name: "a", type: "string" },
        { name: "x", type: "string" },
      ],
      nodes: [node("s", "subgraph", { workflow_id: id, version: 1, input, output: { a: "x" } })],
      edges: [edge("start", "s")],
    });
    const nesting = (depth: number) => {
      const saved: Record<string, Doc> = { "w0@1": child };
      for (let i = 1; i <= depth; i++) saved[`w${i}@1`] = parentOf(`w${i - 1}`);
      return saved;
    };

    it("accepts a nested subgraph at the depth limit", async () => {
      const result = await validateWorkflow(parentOf("w2"), env({}, nesting(2)));
      expect(result.ok).toBe(true);
    });

    it("refuses one level deeper", async () => {
      expect(await codes(parentOf("w3"), env({}, nesting(3)))).toContain("SUBGRAPH_DEPTH_EXCEEDED");
    });

    it("refuses a workflow that contains itself", async () => {
      const saved = { "loop@1": parentOf("loop") };
      const result = await validateWorkflow(parentOf("loop"), env({}, saved), { depth: 0, chain: ["loop"] });
      expect(result.ok ? [] : result.problems.map((p) => p.code)).toContain("SUBGRAPH_CYCLE");
    });

    it("refuses a mapping to fields the child lacks", async () => {
      expect(await codes(parentOf("w0", { nope: "1" }), env({}, nesting(0)))).toContain("SUBGRAPH_FIELD_UNKNOWN");
    });
  });

  describe("subgraphs used many times", () => {
    const counting = (saved: Record<string, Doc>, maxSubgraphDepth = 5) => {
      const calls: string[] = [];
      const environment = env({
        maxSubgraphDepth,
        resolveWorkflow: async (id, version) => {
          calls.push(`${id}@${version}`);
          return saved[`${id}@${version}`];
        },
      });
      return { calls, environment };
    };
    const subgraph = (id: string, workflowId: string) =>
      node(id, "subgraph", { workflow_id: workflowId, version: 1, input: {}, output: {} });
    const chainOf = (name: string, nodes: ReturnType<typeof node>[]): Doc => ({
      name,
      state: [{ name: "a", type: "string" }],
      nodes,
      edges: nodes.map((n, i) => edge(i ? (nodes[i - 1]?.id as string) : "start", n.id)),
    });

    const unreachable = (count: number) => Array.from({ length: count }, (_, i) => code(`lost${i}`));

    it("fetches and validates each child version once per depth, however many nodes use it", async () => {
      // Five levels of 1,000 Subgraph nodes each: 1000^5 validations if each node checked its child.
      const { top, saved } = nestedSubgraphs(5, 1000);
      const { calls, environment } = counting(saved);
      const result = await validateWorkflow(top, environment);
      expect(result.ok).toBe(true);
      expect(calls).toEqual(["level1@1", "level2@1", "level3@1", "level4@1", "level5@1"]);
      expect(result.stats).toMatchObject({ lookups: 5, childValidations: 5 });
      if (result.ok) {
        const children = new Set(result.workflow.subgraphs.values());
        expect(children.size).toBe(1);
      }
    });

    it("checks the depth limit per position: a child used at two depths can be too deep at one only", async () => {
      const saved = {
        "leaf@1": chainOf("leaf", [code("c")]),
        "mid@1": chainOf("mid", [subgraph("s", "leaf")]),
        "outer@1": chainOf("outer", [subgraph("s", "mid")]),
      };
      const { calls, environment } = counting(saved, 2);
      // top → mid → leaf fits in 2 levels; top → outer → mid → leaf needs 3.
      const found = await problems(
        chainOf("top", [subgraph("direct", "mid"), subgraph("nested", "outer")]),
        environment,
      );
      expect(found.map((p) => [p.code, p.node_id])).toEqual([["SUBGRAPH_DEPTH_EXCEEDED", "nested"]]);
      expect(calls.sort()).toEqual(["leaf@1", "mid@1", "outer@1"]);
    });

    it("finds a cycle between saved workflows through validated children", async () => {
      const saved = {
        "a@1": chainOf("a", [subgraph("s", "b")]),
        "b@1": chainOf("b", [subgraph("s", "c")]),
        "c@1": chainOf("c", [subgraph("s", "a")]),
      };
      // Unsaved document using a: the cycle a → b → c → a is inside.
      const { environment } = counting(saved, 10);
      expect(await codes(chainOf("top", [subgraph("x", "a")]), environment)).toEqual(["SUBGRAPH_CYCLE"]);
      // Saved workflow c checked before saving: it uses a, which leads back to c.
      const found = await problems(chainOf("c", [subgraph("x", "a")]), environment);
      expect(found.map((p) => p.code)).toEqual(["SUBGRAPH_CYCLE"]);
      const again = await validateWorkflow(chainOf("c", [subgraph("x", "a")]), environment, { depth: 0, chain: ["c"] });
      expect(again.ok ? [] : again.problems.map((p) => p.code)).toEqual(["SUBGRAPH_CYCLE"]);
    });

    it(`lists at most ${MAX_SUBGRAPH_PROBLEMS} of a child's problems under each Subgraph node, then how many more`, async () => {
      const broken = { ...chainOf("broken", [code("c")]), nodes: [code("c"), ...unreachable(30)] };
      const { environment } = counting({ "broken@1": broken });
      const found = await problems(chainOf("top", [subgraph("s", "broken")]), environment);
      expect(found).toHaveLength(MAX_SUBGRAPH_PROBLEMS + 1);
      expect(found.slice(0, -1).every((p) => p.code === "NODE_UNREACHABLE" && p.node_id === "s")).toBe(true);
      expect(found.at(-1)).toMatchObject({
        code: "PROBLEMS_TRUNCATED",
        node_id: "s",
        message:
          "In subgraph broken v1: 10 more problems were found and not listed: fix these first, then validate again.",
      });
    });

    it(`lists at most ${MAX_PROBLEMS} problems in all, then how many more`, async () => {
      const broken = { ...chainOf("broken", [code("c")]), nodes: [code("c"), ...unreachable(30)] };
      const { calls, environment } = counting({ "broken@1": broken });
      const users = Array.from({ length: 1000 }, (_, i) => subgraph(`s${i}`, "broken"));
      const found = await problems(chainOf("top", users), environment);
      expect(calls).toEqual(["broken@1"]);
      expect(found).toHaveLength(MAX_PROBLEMS + 1);
      // 1,000 nodes × 30 problems; the 500 entries listed stand for 23 nodes' 30 and 17 more.
      expect(found.at(-1)).toMatchObject({
        code: "PROBLEMS_TRUNCATED",
        message: `${(30_000 - 23 * 30 - 17).toLocaleString("en-US")} more problems were found and not listed: fix these first, then validate again.`,
      });
    });
  });

  describe("hostile documents", () => {
    it("answers 20 prompts of 100,000 characters full of unclosed braces and spaces", async () => {
      for (const text of [
        `{{${" ".repeat(99_998)}`,
        `{{ state.a${" ".repeat(99_990)}`,
        "{{{".repeat(33_333),
        "{{ }".repeat(25_000),
      ]) {
        expect(await codes(prompts(20, text))).toEqual([]);
      }
      const closed = await problems(prompts(20, `${"{{".repeat(49_990)}{{ state.missing }}`));
      expect(closed.map((p) => p.code)).toEqual(Array(20).fill("STATE_REFERENCE_UNKNOWN"));
    });

    it("names at most 20 nodes of a 1,000-node loop", async () => {
      const nodes = Array.from({ length: 1000 }, (_, i) => code(`n${String(i).padStart(3, "0")}`));
      const edges = [edge("start", "n000"), ...nodes.map((n, i) => edge(n.id, nodes[(i + 1) % 1000]?.id as string))];
      const found = await problems({ name: "ring", state: [], nodes, edges });
      expect(found.map((p) => p.code)).toEqual(["LOOP_UNGUARDED"]);
      const names = Array.from({ length: 20 }, (_, i) => `n${String(i).padStart(3, "0")}`).join(", ");
      expect(found[0]?.message).toBe(`${VALIDATION_CATALOG.LOOP_UNGUARDED} Nodes in the loop: ${names} and 980 more.`);
    });

    it("answers a fan-out from one node to 997 branches", async () => {
      const wide = fanOut(997, 1, false);
      const result = await validateWorkflow(wide, env());
      expect(result.ok).toBe(true);
      // Two phases (before and after the Join), each node and edge looked at about once.
      expect(result.stats?.parallelWriteOperations).toBeLessThanOrEqual(2 * (wide.nodes.length + wide.edges.length));
      const found = await problems(fanOut(997, 1, true));
      expect(found.map((p) => p.code)).toEqual(["PARALLEL_WRITE_NEEDS_REDUCER"]);
      expect(found[0]?.message).toMatch(/^b0_0 and b1_0 can run in the same superstep/);
    });

    it("answers a 10,000-node document with a clear problem", async () => {
      const nodes = Array.from({ length: 10_000 }, (_, i) => code(`n${i}`));
      const found = await problems({ name: "huge", nodes, edges: [] });
      expect(found[0]).toMatchObject({ code: "DOCUMENT_SCHEMA", path: "nodes" });
    });

    it("answers deeply nested node data without overflowing the stack", async () => {
      let deep: unknown = "x";
      for (let i = 0; i < 100_000; i++) deep = [deep];
      const found = await codes({
        ...valid,
        nodes: [node("c1", "code", { language: "javascript", code: "x", nested: deep })],
      });
      expect(found).toContain("DOCUMENT_SCHEMA");
    });

    it("validates a long chain quickly enough to answer", async () => {
      const nodes = Array.from({ length: 1000 }, (_, i) => code(`n${i}`));
      const edges = [edge("start", "n0"), ...nodes.slice(1).map((n, i) => edge(`n${i}`, n.id))];
      expect(await codes({ name: "chain", state: [], nodes, edges })).toEqual([]);
    });
  });
});
