// Outbound requests of runs started through the API: the egress policy and the server's provider
// keys, end to end. Every target is a loopback server started here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge, httpTool, type Receiver, startReceiver } from "../../test/engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "../../test/fake-openai-server.js";
import { runThroughHook, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const SERVER_KEY = "sk-server-secret-0123456789";

const llmDocument = (baseUrl: string) => ({
  name: "model",
  state: [{ name: "answer", type: "string" }],
  nodes: [
    {
      id: "l",
      type: "llm",
      position: { x: 0, y: 0 },
      data: { model: "gpt-test", base_url: baseUrl, prompt: "hi", output_field: "answer" },
    },
  ],
  edges: [edge("start", "l")],
});

describe("egress policy through the API", () => {
  let receiver: Receiver;
  let llm: FakeServer;
  let studio: TestStudio;
  let owner: Session;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ json: { internal: "secret-internal-data" } }));
    llm = await createFakeOpenAI({ reply: () => ({ text: "hello" }) });
    // The defaults: nothing but public addresses is allowed.
    studio = await startTestStudio({ OPENAI_API_KEY: SERVER_KEY });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
  });
  afterAll(async () => {
    await studio.close();
    await receiver.close();
    await llm.close();
  });

  it("fails an HTTP tool aimed at the server's own network, with the address class and not the answer", async () => {
    const document = {
      name: "ssrf",
      state: [{ name: "r", type: "any" }],
      nodes: [httpTool("t", `${receiver.url}/internal`, "r", { method: "GET" })],
      edges: [edge("start", "t")],
    };
    const { run, runBody, eventsBody } = await runThroughHook(studio, owner, document);
    expect(run.status).toBe("error");
    expect(run.error).toMatchObject({ code: "EGRESS_REFUSED", details: { address_class: "loopback" } });
    expect(receiver.requests).toHaveLength(0);
    expect(runBody + eventsBody).not.toContain("secret-internal-data");
  });

  it("fails an LLM node whose base_url is on loopback, sending nothing there", async () => {
    const { run } = await runThroughHook(studio, owner, llmDocument(llm.url));
    expect(run.error).toMatchObject({ code: "EGRESS_REFUSED", details: { address_class: "loopback" } });
    expect(llm.requests).toHaveLength(0);
  });
});

describe("server provider keys through the API", () => {
  let llm: FakeServer;
  beforeAll(async () => {
    llm = await createFakeOpenAI({ reply: () => ({ text: "hello" }) });
  });
  afterAll(() => llm.close());

  async function answerFrom(env: Record<string, string>) {
    const studio = await startTestStudio({ OPENAI_API_KEY: SERVER_KEY, STUDIO_EGRESS_ALLOW: "127.0.0.1", ...env });
    try {
      await studio.container.runs.start(60_000);
      const owner = await setupOwner(studio);
      const before = llm.requests.length;
      const { run } = await runThroughHook(studio, owner, llmDocument(llm.url));
      expect(run.status).toBe("ok");
      expect(llm.requests.length).toBe(before + 1);
      return llm.requests.at(-1);
    } finally {
      await studio.close();
    }
  }

  it("does not send the server's key to an endpoint a workflow chose", async () => {
    const request = await answerFrom({});
    expect(JSON.stringify(request)).not.toContain(SERVER_KEY);
  });

  it("sends it to an endpoint the administrator lists in STUDIO_SERVER_KEY_ENDPOINTS", async () => {
    const request = await answerFrom({ STUDIO_SERVER_KEY_ENDPOINTS: llm.url });
    expect(request?.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
  });

  it("sends it to the configured OPENAI_BASE_URL", async () => {
    const request = await answerFrom({ OPENAI_BASE_URL: llm.url });
    expect(request?.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
  });
});
