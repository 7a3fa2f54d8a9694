// Every node type allowed as a For each body receives the item and its index: templates as
// {{item}} and {{index}}, Code as main(state, item, index). Each type is run over [1, 2, 3].
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  at,
  collect,
  edge,
  engineConfig,
  httpTool,
  type Receiver,
  startReceiver,
} from "../../../test/engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "../../../test/fake-openai-server.js";
import { runStream } from "../runtime/runtime.js";

const ITEMS = [1, 2, 3];

function loop(body: Record<string, unknown>, extraState: { name: string; type: string }[] = []) {
  return {
    name: "loop",
    state: [
      { name: "items", type: "list" },
      { name: "results", type: "list" },
      { name: "scratch", type: "any" },
      ...extraState,
    ],
    nodes: [
      { id: "fe", type: "for_each", position: at, data: { items: "{{state.items}}", output_field: "results" } },
      { position: at, ...body, id: "body" },
    ],
    edges: [edge("start", "fe"), edge("fe", "body", "item"), edge("fe", "end", "done")],
  };
}

async function results(document: unknown, options: Partial<Parameters<typeof runStream>[2]> = {}) {
  const { outcome } = await collect(
    runStream(
      document,
      { items: ITEMS },
      { engine: engineConfig({ smtpUrl: options.engine?.smtpUrl ?? null }), ...options },
    ),
  );
  expect(outcome.error).toBeUndefined();
  expect(outcome.status).toBe("ok");
  return outcome.state.results as unknown[];
}

describe("For each bodies receive item and index", () => {
  let receiver: Receiver;
  let llm: FakeServer;
  let smtp: SMTPServer;
  let smtpPort: number;
  const subjects: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ json: request.body }));
    llm = await createFakeOpenAI({
      reply: (request) => {
        const messages = request.body.messages as { content: string }[];
        return { text: `echo: ${messages.at(-1)?.content}` };
      },
    });
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          subjects.push(/^Subject: (.*)$/m.exec(Buffer.concat(chunks).toString())?.[1] ?? "");
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    smtpPort = (smtp.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await receiver.close();
    await llm.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it.each(["javascript", "python"])("Code (%s): main(state, item, index)", async (language) => {
    const code =
      language === "javascript"
        ? "function main(state, item, index) { return { scratch: { doubled: item * 2, index, of: state.items.length } }; }"
        : "def main(state, item, index):\n    return {'scratch': {'doubled': item * 2, 'index': index, 'of': len(state['items'])}}";
    expect(await results(loop({ type: "code", data: { language, code } }))).toEqual(
      ITEMS.map((item, index) => ({ scratch: { doubled: item * 2, index, of: 3 } })),
    );
  });

  it.each(["javascript", "python"])("Code (%s): a main(state) body still runs", async (language) => {
    const code =
      language === "javascript"
        ? "function main(state) { return { scratch: state.items.length }; }"
        : "def main(state):\n    return {'scratch': len(state['items'])}";
    expect(await results(loop({ type: "code", data: { language, code } }))).toEqual([
      { scratch: 3 },
      { scratch: 3 },
      { scratch: 3 },
    ]);
  });

  it("Tool (HTTP): {{item}} and {{index}} in the body", async () => {
    const document = loop(
      httpTool("body", `${receiver.url}/each`, "scratch", { body: { item: "{{item}}", index: "{{index}}" } }),
    );
    expect(await results(document)).toEqual(ITEMS.map((item, index) => ({ item, index })));
  });

  it("each iteration's start event names its item, as its input in the trace; other nodes' do not", async () => {
    const document = loop(httpTool("body", `${receiver.url}/each`, "scratch", { body: { item: "{{item}}" } }));
    document.nodes.push({
      id: "after",
      type: "code",
      position: at,
      data: { language: "javascript", code: "function main(){return {}}" },
    } as never);
    document.edges = [
      edge("start", "fe"),
      edge("fe", "body", "item"),
      edge("fe", "after", "done"),
      edge("after", "end"),
    ];
    const { events } = await collect(
      runStream(document, { items: [{ n: 1 }, "two", [3]] }, { engine: engineConfig() }),
    );
    const started = events.filter((event) => event.type === "node_started");
    expect(
      started.filter((event) => event.node_id === "body").map((event) => [event.data.iteration, event.data.item]),
    ).toEqual([
      ["0.0", { n: 1 }],
      ["0.1", "two"],
      ["0.2", [3]],
    ]);
    for (const event of started.filter((e) => e.node_id !== "body")) expect(event.data).not.toHaveProperty("item");
  });

  it("an item larger than the event limit is shown cut, with its size", async () => {
    const document = loop(httpTool("body", `${receiver.url}/each`, "scratch", { body: { item: "{{item}}" } }));
    const big = "x".repeat(4096);
    const { events } = await collect(
      runStream(document, { items: [big] }, { engine: engineConfig({ maxEventBytes: 1024 }) }),
    );
    const started = events.find((event) => event.type === "node_started" && event.node_id === "body");
    expect(started?.data.item).toMatchObject({ truncated: true, bytes: big.length + 2 });
  });

  it("Tool (Python function): {{item}} and {{index}} in args", async () => {
    const document = loop({
      type: "tool",
      data: {
        kind: "python",
        code: "def main(args, idempotency_key):\n    return args['item'] * 10 + args['index']",
        args: { item: "{{item}}", index: "{{index}}" },
        output_field: "scratch",
      },
    });
    expect(await results(document)).toEqual([10, 21, 32]);
  });

  it("LLM: {{item}} and {{index}} in the prompt", async () => {
    const document = loop({
      type: "llm",
      data: { model: "gpt-test", base_url: llm.url, prompt: "item {{item}} at {{index}}", output_field: "scratch" },
    });
    expect(await results(document)).toEqual(["echo: item 1 at 0", "echo: item 2 at 1", "echo: item 3 at 2"]);
  });

  it("Send email: {{item}} and {{index}} in the message", async () => {
    const document = loop({
      type: "send_email",
      data: { to: "a@example.com", subject: "Item {{item}} #{{index}}", body: "x", output_field: "scratch" },
    });
    const engine = engineConfig({ smtpUrl: `smtp://127.0.0.1:${smtpPort}` });
    const gathered = await results(document, { engine });
    expect(gathered).toHaveLength(3);
    expect(subjects.slice(-3).sort()).toEqual(["Item 1 #0", "Item 2 #1", "Item 3 #2"]);
  });

  it("Subgraph: {{item}} and {{index}} in the input mapping", async () => {
    const child = {
      name: "child",
      state: [
        { name: "x", type: "any" },
        { name: "i", type: "any" },
      ],
      nodes: [],
      edges: [edge("start", "end")],
    };
    const document = loop(
      {
        type: "subgraph",
        data: {
          workflow_id: "child",
          version: 1,
          input: { x: "{{item}}", i: "{{index}}" },
          output: { scratch: "x", i: "i" },
        },
      },
      [{ name: "i", type: "any" }],
    );
    expect(await results(document, { resolveWorkflow: async () => child })).toEqual(
      ITEMS.map((item, index) => ({ scratch: item, i: index })),
    );
  });
});
