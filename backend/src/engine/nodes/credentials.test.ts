// Nodes that use the owner's stored credentials, against local stand-ins: the secret reaches the
// service it is meant for, and nothing the run writes (state, events, errors, ledger) contains it.
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, edge, engineConfig, httpTool, type Receiver, startReceiver } from "../../../test/engine-harness.js";
import { createFakeOpenAI, type FakeServer } from "../../../test/fake-openai-server.js";
import type { StoredCredential } from "../../schemas/credential.schema.js";
import { MemoryResultLedger } from "../runtime/ports.js";
import { runStream } from "../runtime/runtime.js";

const at = { x: 0, y: 0 };
const TOKEN = "tok-9f8e7d6c5b4a-secret";
const API_KEY = "sk-user-own-key-0123456789";
const SMTP_PASSWORD = "mail-pass-7777";

const stored: Record<string, StoredCredential> = {
  bearer: { id: "bearer", name: "CRM", type: "http_bearer", data: { token: TOKEN } },
  basic: { id: "basic", name: "Basic", type: "http_basic", data: { username: "ana", password: "pa55-word-ana" } },
  header: { id: "header", name: "Header", type: "http_header", data: { name: "X-Api-Key", value: "hdr-secret-42" } },
  openai: { id: "openai", name: "Mine", type: "openai", data: { api_key: API_KEY } },
};
const credentials = async (id: string) => stored[id];

function everything(value: unknown): string {
  return JSON.stringify(value);
}

describe("HTTP tool with a credential", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    // Echoes the request headers back, as a careless or hostile service would.
    receiver = await startReceiver((request) => {
      if (request.path === "/fail")
        return { status: 401, json: { error: `bad token ${request.headers.authorization}` } };
      return { json: { seen: request.headers } };
    });
  });
  afterAll(() => receiver.close());

  const document = (credentialId: string, path = "/echo") => ({
    name: "crm",
    state: [{ name: "r", type: "any" }],
    nodes: [
      httpTool("t", `${receiver.url}${path}`, "r", { credential_id: credentialId, headers: { authorization: "x" } }),
    ],
    edges: [edge("start", "t")],
  });

  it.each([
    ["bearer", "authorization", `Bearer ${TOKEN}`],
    ["basic", "authorization", `Basic ${Buffer.from("ana:pa55-word-ana").toString("base64")}`],
    ["header", "x-api-key", "hdr-secret-42"],
  ])("sends the %s credential and scrubs it from state, events and ledger", async (id, header, value) => {
    const ledger = new MemoryResultLedger();
    const { events, outcome } = await collect(
      runStream(document(id), {}, { engine: engineConfig(), credentials, ledger }),
    );
    expect(outcome.status).toBe("ok");
    expect(receiver.requests.at(-1)?.headers[header]).toBe(value);
    const secret = value.split(" ").at(-1) as string;
    expect((outcome.state.r as { seen: Record<string, string> }).seen[header]).toContain("[redacted]");
    for (const written of [outcome, events, [...ledger.entries.values()]])
      expect(everything(written)).not.toContain(secret);
  });

  it("scrubs the secret from a failure's error", async () => {
    const { events, outcome } = await collect(
      runStream(document("bearer", "/fail"), {}, { engine: engineConfig(), credentials }),
    );
    expect(outcome.error?.code).toBe("HTTP_TOOL_STATUS");
    expect(everything(outcome.error)).toContain("[redacted]");
    expect(everything([outcome, events])).not.toContain(TOKEN);
  });

  it("refuses to run without the credential (missing, or another user's)", async () => {
    const run = runStream(document("bearer"), {}, { engine: engineConfig(), credentials: async () => undefined });
    await expect(run.next()).rejects.toMatchObject({
      code: "WORKFLOW_INVALID",
      details: [expect.objectContaining({ code: "CREDENTIAL_NOT_FOUND", node_id: "t" })],
    });
  });
});

describe("LLM node with a credential", () => {
  let llm: FakeServer;
  beforeAll(async () => {
    llm = await createFakeOpenAI({ reply: (request) => ({ text: `Your key is ${request.headers.authorization}` }) });
  });
  afterAll(() => llm.close());

  it("sends the user's key to the node's endpoint and scrubs it from tokens and state", async () => {
    const document = {
      name: "mine",
      state: [{ name: "answer", type: "string" }],
      nodes: [
        {
          id: "l",
          type: "llm",
          position: at,
          data: { model: "gpt-test", base_url: llm.url, credential_id: "openai", prompt: "hi", output_field: "answer" },
        },
      ],
      edges: [edge("start", "l")],
    };
    const { events, outcome } = await collect(
      runStream(
        document,
        {},
        { engine: engineConfig({ openai: { apiKey: "sk-server-key-000000", baseUrl: null } }), credentials },
      ),
    );
    expect(outcome.status).toBe("ok");
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(outcome.state.answer).toBe("Your key is Bearer [redacted]");
    expect(everything([events, outcome])).not.toContain(API_KEY);
    expect(everything(llm.requests)).not.toContain("sk-server-key-000000");
  });
});

describe("Send email with an SMTP credential", () => {
  let smtp: SMTPServer;
  let port: number;
  let connections = 0;
  const received: string[] = [];
  beforeAll(async () => {
    smtp = new SMTPServer({
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      onConnect(_session, callback) {
        connections++;
        callback();
      },
      onAuth(auth, _session, callback) {
        if (auth.username === "robot" && auth.password === SMTP_PASSWORD) callback(null, { user: "robot" });
        else callback(new Error("bad credentials"));
      },
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          received.push(Buffer.concat(chunks).toString());
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    port = (smtp.server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  const mail = {
    name: "mail",
    state: [{ name: "sent", type: "any" }],
    nodes: [
      {
        id: "m",
        type: "send_email",
        position: at,
        data: { to: "a@example.com", subject: "Hi", body: "Hello", credential_id: "smtp", output_field: "sent" },
      },
    ],
    edges: [edge("start", "m")],
  };
  const smtpCredentials = async (id: string): Promise<StoredCredential | undefined> =>
    id === "smtp"
      ? {
          id,
          name: "My mail",
          type: "smtp",
          data: { host: "127.0.0.1", port, secure: false, username: "robot", password: SMTP_PASSWORD },
        }
      : undefined;

  it("sends through the user's own server, signed in with the stored password, without STUDIO_SMTP_URL", async () => {
    const { outcome } = await collect(runStream(mail, {}, { engine: engineConfig(), credentials: smtpCredentials }));
    expect(outcome.status).toBe("ok");
    expect(received.at(-1)).toContain("Hello");
    expect(everything(outcome)).not.toContain(SMTP_PASSWORD);
  });

  it("does not connect to an SMTP host the egress policy refuses", async () => {
    const before = connections;
    const { outcome } = await collect(
      runStream(mail, {}, { engine: engineConfig({ egressAllow: [] }), credentials: smtpCredentials }),
    );
    expect(outcome.error).toMatchObject({ code: "EGRESS_REFUSED", details: { address_class: "loopback" } });
    expect(connections).toBe(before);
  });
});
