// The provider module against local fake servers (127.0.0.1 only): what is sent, what comes
// back, and how each kind of failure is reported.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFakeAnthropic } from "../../../test/fake-anthropic-server.js";
import { createFakeOpenAI, type FakeReply, type FakeServer } from "../../../test/fake-openai-server.js";
import { parseEgressAllow } from "../../core/egress/egress-policy.js";
import { AppError } from "../../core/errors.js";
import {
  type ModelSettings,
  type ProviderConfig,
  type ProviderName,
  streamChat,
  structuredChat,
} from "./chat-model.provider.js";

const OPENAI_KEY = "sk-test-openai-0123456789";
const ANTHROPIC_KEY = "sk-ant-test-0123456789";

const servers: FakeServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(provider: ProviderName, reply?: () => FakeReply): Promise<FakeServer> {
  const server = provider === "openai" ? await createFakeOpenAI({ reply }) : await createFakeAnthropic({ reply });
  servers.push(server);
  return server;
}

// The fake servers listen on loopback, which an administrator would allow for a local server.
const LOOPBACK = parseEgressAllow("127.0.0.1");

function noProviders(extra: Partial<ProviderConfig> = {}): ProviderConfig {
  const none = { apiKey: null, baseUrl: null };
  return { openai: none, anthropic: none, egressAllow: LOOPBACK, serverKeyEndpoints: [], ...extra };
}

function providersFor(
  provider: ProviderName,
  url: string | null,
  key: string | null = null,
  extra: Partial<ProviderConfig> = {},
): ProviderConfig {
  const self = { apiKey: key ?? (provider === "openai" ? OPENAI_KEY : ANTHROPIC_KEY), baseUrl: url };
  return noProviders({ [provider]: self, ...extra });
}

function keyHeader(provider: ProviderName, headers: Record<string, unknown>): unknown {
  return provider === "openai" ? headers.authorization : headers["x-api-key"];
}

function settings(provider: ProviderName, extra: Partial<ModelSettings> = {}): ModelSettings {
  return { provider, model: provider === "openai" ? "gpt-4o-mini" : "claude-sonnet-4-5", ...extra };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const SCHEMA = {
  type: "object",
  properties: { verdict: { type: "string", enum: ["yes", "no"] }, score: { type: "number" } },
  required: ["verdict", "score"],
};

describe.each(["openai", "anthropic"] as const)("%s", (provider) => {
  it("streams tokens in order, counts usage and sends the system and prompt", async () => {
    const server = await fake(provider, () => ({
      text: "The quick brown fox.",
      usage: { input_tokens: 7, output_tokens: 4 },
    }));
    const tokens: string[] = [];
    const outcome = await streamChat(
      settings(provider, { temperature: 0.2, max_tokens: 50 }),
      { system: "Be brief.", prompt: "Tell me about foxes." },
      providersFor(provider, server.url),
      (t) => tokens.push(t),
    );

    expect(tokens).toEqual(["The", " quick", " brown", " fox."]);
    expect(outcome).toEqual({ text: "The quick brown fox.", usage: { input_tokens: 7, output_tokens: 4 } });

    expect(server.requests).toHaveLength(1);
    const { body, headers } = server.requests[0]!;
    expect(body.stream).toBe(true);
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(50);
    if (provider === "openai") {
      expect(body.model).toBe("gpt-4o-mini");
      expect(body.stream_options).toEqual({ include_usage: true });
      expect(body.messages).toEqual([
        { role: "system", content: "Be brief." },
        { role: "user", content: "Tell me about foxes." },
      ]);
      expect(headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    } else {
      expect(body.model).toBe("claude-sonnet-4-5");
      expect(body.system).toBe("Be brief.");
      expect(body.messages).toEqual([{ role: "user", content: "Tell me about foxes." }]);
      expect(headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    }
  });

  it("lets the node's base_url win over the configured one", async () => {
    const configured = await fake(provider, () => ({ text: "configured" }));
    const node = await fake(provider, () => ({ text: "node" }));
    const outcome = await streamChat(
      settings(provider, { base_url: node.url }),
      { prompt: "hi" },
      providersFor(provider, configured.url),
      () => {},
    );
    expect(outcome.text).toBe("node");
    expect(node.requests).toHaveLength(1);
    expect(configured.requests).toHaveLength(0);
  });

  it("never sends the server's key to an endpoint the node chose", async () => {
    const configured = await fake(provider, () => ({ text: "configured" }));
    const elsewhere = await fake(provider, () => ({ text: "elsewhere" }));
    const serverKey = provider === "openai" ? OPENAI_KEY : ANTHROPIC_KEY;
    await streamChat(
      settings(provider, { base_url: elsewhere.url }),
      { prompt: "hi" },
      providersFor(provider, configured.url),
      () => {},
    );
    const sent = String(keyHeader(provider, elsewhere.requests[0]?.headers ?? {}));
    expect(sent).not.toContain(serverKey);
    expect(JSON.stringify(elsewhere.requests)).not.toContain(serverKey);
  });

  it("sends the node's credential key wherever its base_url points", async () => {
    const elsewhere = await fake(provider, () => ({ text: "elsewhere" }));
    await streamChat(
      settings(provider, { base_url: elsewhere.url, apiKey: "user-own-key-0001" }),
      { prompt: "hi" },
      providersFor(provider, null),
      () => {},
    );
    expect(String(keyHeader(provider, elsewhere.requests[0]?.headers ?? {}))).toContain("user-own-key-0001");
  });

  it("sends the server's key to an endpoint the administrator listed (STUDIO_SERVER_KEY_ENDPOINTS)", async () => {
    const gateway = await fake(provider, () => ({ text: "gateway" }));
    const serverKey = provider === "openai" ? OPENAI_KEY : ANTHROPIC_KEY;
    await streamChat(
      settings(provider, { base_url: gateway.url }),
      { prompt: "hi" },
      providersFor(provider, null, null, { serverKeyEndpoints: [new URL(gateway.url).origin] }),
      () => {},
    );
    expect(String(keyHeader(provider, gateway.requests[0]?.headers ?? {}))).toContain(serverKey);
  });

  it("refuses a base_url the egress policy does not allow, sending nothing", async () => {
    const local = await fake(provider, () => ({ text: "local" }));
    const error = await rejection(
      streamChat(
        settings(provider, { base_url: local.url, apiKey: "user-own-key-0001" }),
        { prompt: "hi" },
        providersFor(provider, null, null, { egressAllow: [] }),
        () => {},
      ),
    );
    expect(error.code).toBe("EGRESS_REFUSED");
    expect(error.details).toMatchObject({ address_class: "loopback" });
    expect(local.requests).toHaveLength(0);
  });

  it("reaches the endpoint the administrator configured without an egress entry", async () => {
    const configured = await fake(provider, () => ({ text: "configured" }));
    const outcome = await streamChat(
      settings(provider),
      { prompt: "hi" },
      providersFor(provider, configured.url, null, { egressAllow: [] }),
      () => {},
    );
    expect(outcome.text).toBe("configured");
  });

  it("refuses to start without a key and names the variable, sending nothing", async () => {
    const server = await fake(provider);
    // OpenAI: no key and no base URL at all; Anthropic: a base URL does not stand in for a key.
    const providers =
      provider === "openai" ? noProviders() : noProviders({ anthropic: { apiKey: null, baseUrl: server.url } });
    const error = await rejection(streamChat(settings(provider), { prompt: "hi" }, providers, () => {}));
    expect(error.code).toBe("PROVIDER_KEY_MISSING");
    const variable = provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
    expect(error.details).toEqual({ variable, provider });
    expect(error.message).toContain(variable);
    expect(server.requests).toHaveLength(0);
  });

  it.each([401, 500])("reports HTTP %i as LLM_FAILED without the key", async (status) => {
    const key = provider === "openai" ? OPENAI_KEY : ANTHROPIC_KEY;
    const server = await fake(provider, () => ({ status, error: `Request refused for key ${key}` }));
    const error = await rejection(
      streamChat(settings(provider), { prompt: "hi" }, providersFor(provider, server.url), () => {}),
    );
    expect(error.code).toBe("LLM_FAILED");
    expect(error.details).toMatchObject({ provider, status });
    expect((error.details as { message: string }).message).toContain("Request refused for key");
    expect(error.message).not.toContain(key);
    expect(JSON.stringify(error.details)).not.toContain(key);
  });

  it("reports an unreachable server as LLM_FAILED", async () => {
    const server = await fake(provider);
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const error = await rejection(
      streamChat(settings(provider), { prompt: "hi" }, providersFor(provider, url), () => {}),
    );
    expect(error.code).toBe("LLM_FAILED");
    expect(error.details).toMatchObject({ provider });
  });

  it("returns a structured answer that matches the schema", async () => {
    const server = await fake(provider, () => ({
      json: { verdict: "yes", score: 0.9 },
      usage: { input_tokens: 12, output_tokens: 5 },
    }));
    const result = await structuredChat(
      settings(provider),
      { system: "Judge.", prompt: "Is it good?" },
      SCHEMA,
      providersFor(provider, server.url),
    );
    expect(result).toEqual({ value: { verdict: "yes", score: 0.9 }, usage: { input_tokens: 12, output_tokens: 5 } });
    const { body } = server.requests[0]!;
    if (provider === "openai") {
      expect(body.tool_choice).toEqual({ type: "function", function: { name: "answer" } });
      expect(body.tools[0]).toMatchObject({ type: "function", function: { name: "answer", parameters: SCHEMA } });
      expect(body.response_format).toBeUndefined();
    } else {
      expect(body.tool_choice).toEqual({ type: "tool", name: "answer" });
      expect(body.tools[0]).toMatchObject({ name: "answer", input_schema: SCHEMA });
    }
  });

  it("refuses an answer that violates the schema with LLM_OUTPUT_INVALID", async () => {
    const server = await fake(provider, () => ({ json: { verdict: "maybe", score: "high" } }));
    const error = await rejection(
      structuredChat(settings(provider), { prompt: "Is it good?" }, SCHEMA, providersFor(provider, server.url)),
    );
    expect(error.code).toBe("LLM_OUTPUT_INVALID");
    expect(error.details).toMatchObject({
      provider,
      problems: ['$.verdict should be one of "yes", "no"', "$.score should be number, not string"],
    });
  });

  it("stops when aborted mid-stream and closes the connection", async () => {
    // Two tokens, then the server sends nothing more: only the abort can end the call.
    const server = await fake(provider, () => ({ text: "word ".repeat(200), stallAfter: 2 }));
    const controller = new AbortController();
    const tokens: string[] = [];
    const run = streamChat(
      settings(provider),
      { prompt: "Talk for a long time." },
      providersFor(provider, server.url),
      (t) => {
        tokens.push(t);
        if (tokens.length === 2) controller.abort();
      },
      controller.signal,
    );
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(error).not.toBeInstanceOf(AppError);
    expect(tokens).toHaveLength(2);
    await vi.waitFor(() => expect(server.requests[0]?.closedEarly).toBe(true), { timeout: 30_000 });
  });
});

describe("openai specifics", () => {
  it("sends a placeholder key to a keyless OpenAI-compatible server", async () => {
    const server = await fake("openai", () => ({ text: "local" }));
    const providers = noProviders();
    const outcome = await streamChat(
      settings("openai", { base_url: server.url, model: "llama3" }),
      { prompt: "hi" },
      providers,
      () => {},
    );
    expect(outcome.text).toBe("local");
    expect(server.requests[0]?.headers.authorization).toMatch(/^Bearer \S+$/);
  });

  it("names the function `answer` even when the schema has a title", async () => {
    const server = await fake("openai", () => ({ json: { verdict: "no", score: 1 } }));
    const titled = { ...SCHEMA, title: "Verdict of the judge" };
    const result = await structuredChat(
      settings("openai"),
      { prompt: "?" },
      titled,
      providersFor("openai", server.url),
    );
    expect(result.value).toEqual({ verdict: "no", score: 1 });
    expect(server.requests[0]?.body.tool_choice).toEqual({ type: "function", function: { name: "answer" } });
  });

  it("refuses an answer that is not JSON", async () => {
    const server = await fake("openai", () => ({ text: "Sure! Here it is." }));
    // LangChain warns when every tool call of a message is malformed; expected here.
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = await rejection(
      structuredChat(settings("openai"), { prompt: "?" }, SCHEMA, providersFor("openai", server.url)),
    );
    expect(error.code).toBe("LLM_OUTPUT_INVALID");
    expect(error.details).toMatchObject({ problems: ["the answer is not a JSON object"], output: "Sure! Here it is." });
    expect(server.requests).toHaveLength(1); // a malformed answer is not retried
  });
});

describe("structured answers checked with Ajv", () => {
  it("sends no request when the schema would run a regular expression", async () => {
    const server = await fake("openai", () => ({ json: { name: "x" } }));
    const hostile = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
    const error = await structuredChat(
      settings("openai"),
      { prompt: "?" },
      hostile,
      providersFor("openai", server.url),
    ).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('json_schema uses "pattern" at /properties/name, which is not accepted');
    expect(server.requests).toHaveLength(0);
  });

  it("reports a format the answer breaks, with the model's output", async () => {
    const server = await fake("anthropic", () => ({ json: { when: "next tuesday" } }));
    const schema = { type: "object", properties: { when: { type: "string", format: "date" } }, required: ["when"] };
    const error = await rejection(
      structuredChat(settings("anthropic"), { prompt: "When?" }, schema, providersFor("anthropic", server.url)),
    );
    expect(error.code).toBe("LLM_OUTPUT_INVALID");
    expect(error.details).toEqual({
      provider: "anthropic",
      problems: ['$.when should match format "date"'],
      output: '{"when":"next tuesday"}',
    });
  });
});
