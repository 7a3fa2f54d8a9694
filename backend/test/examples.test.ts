// Every example in examples/ is valid and runs, with local stand-ins for the outside world.
import { readdirSync, readFileSync } from "node:fs";
import { MemorySaver } from "@langchain/langgraph";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStream } from "../src/engine/runtime/runtime.js";
import { NODE_TYPES, workflowDocument } from "../src/schemas/workflow.schema.js";
import { collect, engineConfig, type Receiver, startReceiver } from "./engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "./fake-openai-server.js";

const dir = new URL("../../examples/", import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
// biome-ignore lint/suspicious/noExplicitAny: examples are plain JSON documents.
const load = (file: string): any => JSON.parse(readFileSync(new URL(file, dir), "utf8"));
const childWorkflows = async (id: string) => {
  try {
    return load(`workflows/${id}.json`);
  } catch {
    return undefined;
  }
};

describe("examples", () => {
  let receiver: Receiver;
  let llm: FakeServer;
  let smtp: SMTPServer;
  let smtpPort: number;
  const mail: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ json: { status: "ok" } }));
    llm = await createFakeOpenAI({
      reply: (request) =>
        request.body.tools?.length
          ? { json: { label: "refund", reason: "money back" } }
          : { text: "Your order ships today." },
    });
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, _session, callback) {
        let raw = "";
        stream.on("data", (c: Buffer) => {
          raw += c.toString();
        });
        stream.on("end", () => {
          mail.push(raw);
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

  it("are all listed in the examples README and valid documents", () => {
    const readme = readFileSync(new URL("README.md", dir), "utf8");
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const file of files) {
      expect(readme, file).toContain(`\`${file}\``);
      const parsed = workflowDocument.safeParse(load(file));
      expect(parsed.error?.issues ?? [], file).toEqual([]);
    }
  });

  it("use every node type between them", () => {
    const types = new Set(files.flatMap((f) => load(f).nodes.map((n: { type: string }) => n.type)));
    for (const type of NODE_TYPES) {
      expect(types, type).toContain(type);
    }
  });

  const engine = () => engineConfig({ smtpUrl: `smtp://127.0.0.1:${smtpPort}` });
  const run = (document: unknown, input: unknown, extra: Record<string, unknown> = {}) =>
    collect(runStream(document, input, { engine: engine(), resolveWorkflow: childWorkflows, ...extra }));
  const viaFakeLlm = (document: { nodes: { type: string; data: Record<string, unknown> }[] }) => {
    for (const node of document.nodes)
      if (node.type === "llm" || node.type === "decision") node.data.base_url = llm.url;
    return document;
  };

  it("hello passes its input through", async () => {
    const { outcome } = await run(load("hello.json"), { greeting: "Xin chào" });
    expect(outcome).toMatchObject({ status: "ok", output: { greeting: "Xin chào" } });
  });

  it("triage drafts a normal reply at once and waits for a person on urgent ones", async () => {
    const normal = await run(load("triage.json"), { message: "hello there" });
    expect(normal.outcome.output).toEqual({
      priority: "normal",
      reply: "Thanks for your message, we will get back to you soon.",
    });

    const checkpointer = new MemorySaver();
    const urgent = await run(
      load("triage.json"),
      { message: "I need a REFUND" },
      { checkpointer, runId: "triage-urgent" },
    );
    expect(urgent.outcome.status).toBe("waiting");
    const resumed = await run(load("triage.json"), null, {
      checkpointer,
      runId: "triage-urgent",
      resume: { kind: "human", input: { approved: true } },
    });
    expect(resumed.outcome.output).toEqual({
      priority: "urgent",
      reply: "Thanks for your message, we will get back to you right away.",
    });
  });

  it("fan-out-join merges both branches before summarising", async () => {
    const { outcome } = await run(load("fan-out-join.json"), {});
    expect(outcome.state.stats).toEqual({ words: 9, letters: 35 });
    expect(outcome.state.summary).toBe("9 words, 35 letters");
  });

  it("for-each counts every document in order and totals them", async () => {
    const { outcome } = await run(load("for-each.json"), {});
    expect(outcome.state.counts).toEqual([
      { index: 0, words: 3 },
      { index: 1, words: 2 },
      { index: 2, words: 1 },
    ]);
    expect(outcome.state.total).toBe(6);
  });

  it("http-tool calls the URL it is given", async () => {
    const { outcome } = await run(load("http-tool.json"), { url: `${receiver.url}/api/health` });
    expect(outcome.state.response).toEqual({ status: "ok" });
  });

  it("subgraph runs the child workflow", async () => {
    const { outcome } = await run(load("subgraph.json"), {});
    expect(outcome.state.stats).toEqual({ words: 6, longest: "subgraphs" });
  });

  it("send-email sends through SMTP", async () => {
    const { outcome } = await run(load("send-email.json"), {});
    expect(outcome.status).toBe("ok");
    expect(mail.at(-1)).toContain("Subject: Welcome, Ana");
  });

  it("llm answers through an OpenAI-compatible server", async () => {
    const { outcome } = await run(viaFakeLlm(load("llm.json")), {});
    expect(outcome.state.answer).toBe("Your order ships today.");
  });

  it("decision routes refunds to a person", async () => {
    const { outcome } = await run(viaFakeLlm(load("decision.json")), {});
    expect(outcome.status).toBe("waiting");
    expect(outcome.waiting?.node_id).toBe("refund");
    expect(outcome.state.decision).toEqual({ label: "refund", reason: "money back" });
  });
});
