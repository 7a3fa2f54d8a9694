// Node types that talk to the outside world, each against a local stand-in started by the test.
import { MemorySaver } from "@langchain/langgraph";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalWorkflow,
  collect,
  edge,
  engineConfig,
  eventsOf,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "../../../test/fake-openai-server.js";
import { parseEgressAllow } from "../../core/egress/egress-policy.js";
import { MemoryResultLedger } from "../runtime/ports.js";
import { runStream } from "../runtime/runtime.js";

const at = { x: 0, y: 0 };

describe("LLM node", () => {
  let llm: FakeServer;
  beforeAll(async () => {
    llm = await createFakeOpenAI({
      reply: (request) => {
        const tools = request.body.tools as { function: { name: string } }[] | undefined;
        if (tools?.length) return { json: { label: "refund", reason: "the customer asks for money back" } };
        return { text: "Hello Ana, how can I help?" };
      },
    });
  });
  afterAll(() => llm.close());

  const reply = (extra: Record<string, unknown> = {}) => ({
    name: "Support triage",
    state: [
      { name: "message", type: "string" },
      { name: "answer", type: "any" },
    ],
    nodes: [
      {
        id: "n1",
        type: "llm",
        position: at,
        data: {
          model: "gpt-test",
          base_url: llm.url,
          system: "Be brief.",
          prompt: "Hi {{state.message}}",
          output_field: "answer",
          ...extra,
        },
      },
    ],
    edges: [edge("start", "n1")],
  });

  it("streams tokens as node_token events and writes the answer", async () => {
    const { events, outcome } = await collect(runStream(reply(), { message: "Ana" }, { engine: engineConfig() }));
    const tokens = eventsOf(events, "node_token", "n1").map((e) => e.data.text);
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join("")).toBe("Hello Ana, how can I help?");
    expect(outcome.state.answer).toBe("Hello Ana, how can I help?");
    const usage = eventsOf(events, "node_finished", "n1")[0]?.data.usage as {
      input_tokens: number;
      output_tokens: number;
    };
    expect(usage.output_tokens).toBeGreaterThan(0);
    const sent = llm.requests.at(-1)?.body;
    expect(sent.model).toBe("gpt-test");
    expect(sent.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi Ana" },
    ]);
  });

  it("is not called again when the ledger holds its result", async () => {
    const ledger = new MemoryResultLedger();
    await ledger.put("r-ledger:n1:0", { update: { answer: "remembered" } });
    const before = llm.requests.length;
    const { events, outcome } = await collect(
      runStream(reply(), { message: "Ana" }, { engine: engineConfig(), runId: "r-ledger", ledger }),
    );
    expect(llm.requests.length).toBe(before);
    expect(eventsOf(events, "node_token")).toEqual([]);
    expect(eventsOf(events, "node_finished", "n1")[0]?.data.reused).toBe(true);
    expect(outcome.state.answer).toBe("remembered");
  });

  it("ends with an error naming the variable to set when no key is configured", async () => {
    const document = reply();
    (document.nodes[0]?.data as Record<string, unknown>).base_url = undefined;
    const run = runStream(document, { message: "Ana" }, { engine: engineConfig() });
    await expect(run.next()).rejects.toMatchObject({
      code: "WORKFLOW_INVALID",
      details: [
        expect.objectContaining({
          code: "PROVIDER_NOT_CONFIGURED",
          message: expect.stringContaining("OPENAI_API_KEY"),
        }),
      ],
    });
  });

  it("routes a Decision by the label the model picks, recording the reason", async () => {
    const document = {
      name: "decide",
      state: [
        { name: "message", type: "string" },
        { name: "why", type: "any" },
        { name: "out", type: "any" },
      ],
      nodes: [
        {
          id: "d",
          type: "decision",
          position: at,
          data: { model: "gpt-test", base_url: llm.url, prompt: "Route: {{state.message}}", output_field: "why" },
        },
        { id: "refund_path", type: "human", position: at, data: { message: "refund", output_field: "out" } },
        { id: "other_path", type: "human", position: at, data: { message: "other", output_field: "out" } },
      ],
      edges: [edge("start", "d"), edge("d", "refund_path", "refund"), edge("d", "other_path", "question")],
    };
    const { events, outcome } = await collect(
      runStream(document, { message: "money back please" }, { engine: engineConfig() }),
    );
    expect(eventsOf(events, "node_finished", "d")[0]?.data.route).toBe("refund");
    expect(outcome.state.why).toEqual({ label: "refund", reason: "the customer asks for money back" });
    expect(outcome.waiting?.node_id).toBe("refund_path");
    const sent = llm.requests.at(-1)?.body;
    expect(JSON.stringify(sent.tools)).toContain('"enum":["refund","question"]');
  });
});

describe("HTTP tool node", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((request) => {
      if (request.path === "/fail") return { status: 503, json: { error: "down" } };
      if (request.path === "/text") return { text: "plain" };
      return { json: { ok: true, got: request.body } };
    });
  });
  afterAll(() => receiver.close());

  const tool = (path: string, extra: Record<string, unknown> = {}) => ({
    name: "tool",
    state: [{ name: "r", type: "any" }],
    nodes: [httpTool("t", `${receiver.url}${path}`, "r", extra)],
    edges: [edge("start", "t")],
  });

  it("renders headers and body templates, and parses JSON answers", async () => {
    const { outcome } = await collect(
      runStream(
        tool("/echo", { headers: { "X-Customer": "{{context.tenant}}" }, body: { q: "{{context.tenant}}" } }),
        {},
        {
          engine: engineConfig(),
          context: { tenant: "acme" },
        },
      ),
    );
    expect(outcome.state.r).toEqual({ ok: true, got: { q: "acme" } });
    expect(receiver.requests.at(-1)?.headers["x-customer"]).toBe("acme");
  });

  it("keeps a text answer as text", async () => {
    const { outcome } = await collect(runStream(tool("/text"), {}, { engine: engineConfig() }));
    expect(outcome.state.r).toBe("plain");
  });

  it("fails on an error status with the status in the details", async () => {
    const { outcome, events } = await collect(runStream(tool("/fail"), {}, { engine: engineConfig() }));
    expect(outcome.error).toMatchObject({ code: "HTTP_TOOL_STATUS", details: { status: 503 } });
    expect(eventsOf(events, "error", "t")).toHaveLength(1);
  });

  it("refuses a response larger than its cap", async () => {
    const { outcome } = await collect(
      runStream(tool("/echo", { max_response_bytes: 5 }), {}, { engine: engineConfig() }),
    );
    expect(outcome.error?.code).toBe("HTTP_TOOL_RESPONSE_TOO_LARGE");
  });

  it("refuses a loopback URL unless the administrator allows it, with the address class and not the response", async () => {
    const before = receiver.requests.length;
    const { outcome, events } = await collect(
      runStream(tool("/echo"), {}, { engine: engineConfig({ egressAllow: [] }) }),
    );
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({
      code: "EGRESS_REFUSED",
      details: { address: "127.0.0.1", address_class: "loopback" },
    });
    expect(outcome.state.r).toBeUndefined();
    expect(JSON.stringify(events)).not.toContain('"ok":true');
    expect(receiver.requests.length).toBe(before);
  });

  it("refuses cloud metadata addresses in every spelling, whatever is allowed", async () => {
    const everything = engineConfig({ egressAllow: parseEgressAllow("0.0.0.0/0, ::/0") });
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://0xa9fea9fe/latest/",
      "http://2852039166/latest/",
      "http://[::ffff:169.254.169.254]/",
      "http://[64:ff9b::a9fe:a9fe]/",
    ]) {
      const document = { ...tool("/x"), nodes: [httpTool("t", url, "r", { method: "GET" })] };
      const { outcome } = await collect(runStream(document, {}, { engine: everything }));
      expect(outcome.error, url).toMatchObject({ code: "EGRESS_REFUSED", details: { address_class: "metadata" } });
    }
  });

  it("fails clearly when nothing listens", async () => {
    const document = { ...tool("/x"), nodes: [httpTool("t", "http://127.0.0.1:9/nothing", "r")] };
    const { outcome } = await collect(runStream(document, {}, { engine: engineConfig() }));
    expect(outcome.error?.code).toBe("HTTP_TOOL_FAILED");
  });
});

describe("Send email node", () => {
  let smtp: SMTPServer;
  let port: number;
  const received: { envelope: { to: string[] }; raw: string }[] = [];
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          received.push({
            envelope: { to: session.envelope.rcptTo.map((r) => r.address) },
            raw: Buffer.concat(chunks).toString(),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    port = (smtp.server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  it("sends the rendered message with a Message-ID derived from the idempotency key", async () => {
    const document = {
      name: "mail",
      state: [
        { name: "name", type: "string" },
        { name: "sent", type: "any" },
      ],
      nodes: [
        {
          id: "m",
          type: "send_email",
          position: at,
          data: {
            to: "{{state.name}}@example.com",
            subject: "Hi {{state.name}}",
            body: "Welcome, {{state.name}}!",
            output_field: "sent",
          },
        },
      ],
      edges: [edge("start", "m")],
    };
    const { outcome } = await collect(
      runStream(
        document,
        { name: "ana" },
        { engine: engineConfig({ smtpUrl: `smtp://127.0.0.1:${port}` }), runId: "mail-run" },
      ),
    );
    expect(outcome.status).toBe("ok");
    const message = received.at(-1);
    expect(message?.envelope.to).toEqual(["ana@example.com"]);
    expect(message?.raw).toContain("Subject: Hi ana");
    expect(message?.raw).toContain("Welcome, ana!");
    expect(message?.raw).toMatch(/Message-ID: <mail-run\.m\.0@superstep>/i);
    expect(outcome.state.sent).toMatchObject({ message_id: "<mail-run.m.0@superstep>", accepted: ["ana@example.com"] });
  });
});

describe("Subgraph node", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ json: { echoed: request.body } }));
  });
  afterAll(() => receiver.close());

  const child = () => ({
    name: "child",
    state: [
      { name: "x", type: "string" },
      { name: "y", type: "any" },
    ],
    nodes: [httpTool("inner", `${receiver.url}/inner`, "y", { body: { x: "{{state.x}}" } })],
    edges: [edge("start", "inner")],
  });
  const parentOf = (id: string) => ({
    name: `parent of ${id}`,
    state: [
      { name: "a", type: "string" },
      { name: "x", type: "string" },
      { name: "y", type: "any" },
      { name: "result", type: "any" },
    ],
    nodes: [
      {
        id: "sub",
        type: "subgraph",
        position: at,
        data: { workflow_id: id, version: 1, input: { x: "{{state.a}}" }, output: { result: "y", y: "y" } },
      },
    ],
    edges: [edge("start", "sub")],
  });

  it("runs the pinned child with mapped input and output, nested to the depth limit", async () => {
    // top → w1 → w0: two levels of subgraphs.
    const middle = {
      ...parentOf("w0"),
      nodes: [
        {
          id: "sub",
          type: "subgraph",
          position: at,
          data: { workflow_id: "w0", version: 1, input: { x: "{{state.x}}" }, output: { y: "y" } },
        },
      ],
    };
    const saved: Record<string, unknown> = { "w0@1": child(), "w1@1": middle };
    const { events, outcome } = await collect(
      runStream(
        parentOf("w1"),
        { a: "hello" },
        {
          engine: engineConfig({ maxSubgraphDepth: 2 }),
          resolveWorkflow: async (id, version) => saved[`${id}@${version}`],
          runId: "nested",
        },
      ),
    );
    expect(outcome.status).toBe("ok");
    expect(outcome.state.result).toEqual({ echoed: { x: "hello" } });
    expect(eventsOf(events, "node_finished").map((e) => e.node_id)).toEqual(["sub/sub/inner", "sub/sub", "sub"]);
    expect(receiver.requests.at(-1)?.headers["idempotency-key"]).toBe("nested:sub:0:sub:0:inner:0");

    const tooDeep = runStream(
      parentOf("w1"),
      { a: "hello" },
      {
        engine: engineConfig({ maxSubgraphDepth: 1 }),
        resolveWorkflow: async (id, version) => saved[`${id}@${version}`],
      },
    );
    await expect(tooDeep.next()).rejects.toMatchObject({
      details: [expect.objectContaining({ code: "SUBGRAPH_DEPTH_EXCEEDED" })],
    });
  });
});

describe("Human node inside a Subgraph", () => {
  it("pauses the whole run and resumes the child with the answer", async () => {
    const parent = {
      name: "parent",
      state: [{ name: "result", type: "any" }],
      nodes: [
        {
          id: "sub",
          type: "subgraph",
          position: at,
          data: { workflow_id: "child", version: 1, output: { result: "answer" } },
        },
      ],
      edges: [edge("start", "sub")],
    };
    const options = {
      engine: engineConfig(),
      checkpointer: new MemorySaver(),
      runId: "nested-human",
      resolveWorkflow: async () => approvalWorkflow(),
    };
    const first = await collect(runStream(parent, {}, options));
    expect(first.outcome.status).toBe("waiting");
    expect(first.outcome.waiting?.node_id).toBe("sub/ask");
    const second = await collect(
      runStream(parent, null, { ...options, resume: { kind: "human", input: { ok: true } } }),
    );
    expect(second.outcome).toMatchObject({ status: "ok", state: { result: { ok: true } } });
  });
});

describe("Subgraph as a For each body", () => {
  it("runs the child once per item and gathers its outputs in order", async () => {
    const child = { name: "child", state: [{ name: "x", type: "any" }], nodes: [], edges: [edge("start", "end")] };
    const parent = {
      name: "parent",
      state: [
        { name: "items", type: "list" },
        { name: "out", type: "list" },
        { name: "x", type: "any" },
      ],
      nodes: [
        { id: "fe", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "out" } },
        {
          id: "sub",
          type: "subgraph",
          position: at,
          data: { workflow_id: "child", version: 1, input: { x: "{{item}}" }, output: { x: "x" } },
        },
      ],
      edges: [edge("start", "fe"), edge("fe", "sub", "item"), edge("fe", "end", "done")],
    };
    const { outcome } = await collect(
      runStream(parent, { items: ["a", "b", "c"] }, { engine: engineConfig(), resolveWorkflow: async () => child }),
    );
    expect(outcome.state.out).toEqual([{ x: "a" }, { x: "b" }, { x: "c" }]);
    expect(outcome.state.x).toBeUndefined();
  });
});

describe("Code node", () => {
  const codeNode = (id: string, code: string, extra: Record<string, unknown> = {}) => ({
    id,
    type: "code",
    position: at,
    data: { language: "javascript", code, ...extra },
  });
  const single = (code: string, engine = engineConfig()) =>
    collect(
      runStream(
        {
          name: "code",
          state: [{ name: "a", type: "any" }],
          nodes: [codeNode("c", code)],
          edges: [edge("start", "c")],
        },
        { a: 1 },
        { engine },
      ),
    );

  it("returns a partial update from main(state)", async () => {
    const { outcome } = await single("function main(state) { return { a: state.a + 41 }; }");
    expect(outcome.state.a).toBe(42);
  });

  it("refuses keys that are not declared state fields", async () => {
    const { outcome } = await single("function main() { return { a: 1, sneaky: 2 }; }");
    expect(outcome.error).toMatchObject({ code: "CODE_RESULT_INVALID", details: { unknown_keys: ["sneaky"] } });
  });

  it("stops code that runs too long", async () => {
    const { outcome } = await single("function main() { while (true) {} }", engineConfig({ codeTimeoutMs: 500 }));
    expect(outcome.error?.code).toBe("CODE_TIMEOUT");
  });

  it("reports what the code raised", async () => {
    const { outcome } = await single("function main() { throw new Error('no luck'); }");
    expect(outcome.error?.code).toBe("CODE_ERROR");
    expect(outcome.error?.message).toContain("no luck");
  });

  it("fails the run with PARALLEL_WRITE_CONFLICT when undeclared parallel writes clash", async () => {
    const document = {
      name: "clash",
      state: [{ name: "a", type: "any" }],
      nodes: [
        codeNode("c1", "function main() { return { a: 1 }; }"),
        codeNode("c2", "function main() { return { a: 2 }; }"),
      ],
      edges: [edge("start", "c1"), edge("start", "c2")],
    };
    const { outcome, events } = await collect(runStream(document, {}, { engine: engineConfig() }));
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe("PARALLEL_WRITE_CONFLICT");
    expect(eventsOf(events, "error")).toHaveLength(1);
  });
});
