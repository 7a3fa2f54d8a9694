// One door to the chat models: builds a LangChain model for a node's settings, streams text or
// asks for a structured answer, and turns every provider failure into a catalogued AppError.
// The configuration (core/config.ts) and the node's credential are the only sources of keys and
// base URLs: values are always passed explicitly so the SDKs never fall back to environment
// variables on their own. A server key goes only to its provider's configured endpoint (or one
// the administrator lists); every request goes through the egress policy.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { EngineConfig } from "../../core/config.js";
import { EgressClient, egressRefusalIn } from "../../core/egress/egress-client.js";
import { EgressPolicy, type EgressRule, parseEgressRule } from "../../core/egress/egress-policy.js";
import { AppError } from "../../core/errors.js";
import { lazyImport } from "../../core/lazy-import.js";
import { answerSchemaProblem, checkAnswer } from "./answer-schema.js";

// The SDKs (OpenAI's and Anthropic's clients with LangChain around them: hundreds of modules) load
// with the first model call: a server whose workflows call no model never pays for them.
export const providerModules = {
  openai: lazyImport(() => import("@langchain/openai")),
  anthropic: lazyImport(() => import("@langchain/anthropic")),
  messages: lazyImport(() => import("@langchain/core/messages")),
};

export type ProviderName = "openai" | "anthropic";

export interface ModelSettings {
  provider: ProviderName;
  model: string;
  base_url?: string;
  temperature?: number;
  max_tokens?: number;
  /** The node's own key (a stored credential), sent wherever base_url points. */
  apiKey?: string;
}

export interface ChatTurn {
  system?: string;
  prompt: string;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface ChatOutcome {
  text: string;
  usage: TokenUsage;
}

export type ProviderConfig = Pick<EngineConfig, "openai" | "anthropic" | "egressAllow" | "serverKeyEndpoints">;

// One retry absorbs a dropped connection or a 5xx blip; more would hold a run for long
// back-offs while the run timeout and cancellation are the real limits.
const MAX_RETRIES = 1;
// Time allowed until the server starts answering; a streamed answer may take longer overall.
const REQUEST_TIMEOUT_MS = 10 * 60_000;
// Local OpenAI-compatible servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK
// refuses to start without one.
const PLACEHOLDER_KEY = "not-needed";
// Anthropic requires max_tokens on every request.
const DEFAULT_ANTHROPIC_MAX_TOKENS = 1024;
const DEFAULT_OPENAI_URL = "https://api.openai.com/v1";
const DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com";

interface BuiltModel {
  model: BaseChatModel;
  /** The key in use, to scrub from error messages. */
  secret: string | null;
}

/** The endpoint the server's key for a provider belongs to. */
function serverEndpoint(provider: ProviderName, providers: ProviderConfig): string {
  return provider === "anthropic"
    ? (providers.anthropic.baseUrl ?? DEFAULT_ANTHROPIC_URL)
    : (providers.openai.baseUrl ?? DEFAULT_OPENAI_URL);
}

function mayReceiveServerKey(endpoint: string, provider: ProviderName, providers: ProviderConfig): boolean {
  const origin = new URL(endpoint).origin;
  return (
    origin === new URL(serverEndpoint(provider, providers)).origin || providers.serverKeyEndpoints.includes(origin)
  );
}

/** Whether a node without a credential would send the server's key (and so needs one set). */
export function serverKeyNeeded(
  provider: ProviderName,
  baseUrl: string | undefined,
  providers: ProviderConfig,
): boolean {
  return mayReceiveServerKey(baseUrl ?? serverEndpoint(provider, providers), provider, providers);
}

/**
 * The key a request to `endpoint` carries: the node's credential; else the server's key when
 * the endpoint is the provider's configured one; else none (a local OpenAI-compatible server
 * needs none, and the server's key must not leave for an endpoint a workflow chose).
 */
function keyFor(settings: ModelSettings, endpoint: string, providers: ProviderConfig): string | null {
  if (settings.apiKey) return settings.apiKey;
  if (!mayReceiveServerKey(endpoint, settings.provider, providers)) return null;
  if (settings.provider === "anthropic") {
    if (providers.anthropic.apiKey) return providers.anthropic.apiKey;
    throw new AppError(
      "PROVIDER_KEY_MISSING",
      { variable: "ANTHROPIC_API_KEY", provider: "anthropic" },
      "Set ANTHROPIC_API_KEY (or give the node an Anthropic credential) to run Anthropic models.",
    );
  }
  if (providers.openai.apiKey) return providers.openai.apiKey;
  if (providers.openai.baseUrl) return null;
  throw new AppError(
    "PROVIDER_KEY_MISSING",
    { variable: "OPENAI_API_KEY", provider: "openai" },
    "Set OPENAI_API_KEY (or give the node an OpenAI credential or a base_url) to run OpenAI models.",
  );
}

function endpointRule(endpoint: string): EgressRule[] {
  const url = new URL(endpoint);
  const rule = parseEgressRule(`${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`);
  return rule ? [rule] : [];
}

// Model requests may also reach the endpoints the administrator configured (a local Ollama in
// OPENAI_BASE_URL needs no separate STUDIO_EGRESS_ALLOW entry); one client per configuration.
const modelClients = new WeakMap<ProviderConfig, EgressClient>();
function egressFor(providers: ProviderConfig): EgressClient {
  let client = modelClients.get(providers);
  if (!client) {
    const configured = [providers.openai.baseUrl, providers.anthropic.baseUrl, ...providers.serverKeyEndpoints];
    const extra = configured.filter((url): url is string => url !== null).flatMap(endpointRule);
    client = new EgressClient(new EgressPolicy(providers.egressAllow).with(extra));
    modelClients.set(providers, client);
  }
  return client;
}

/**
 * The model for a node's settings. The endpoint is checked against the egress policy first, so
 * a refused one fails at once instead of after the SDK's retry; every connection the SDK then
 * opens is checked again.
 */
async function openModel(settings: ModelSettings, providers: ProviderConfig): Promise<BuiltModel> {
  const endpoint = settings.base_url ?? serverEndpoint(settings.provider, providers);
  const secret = keyFor(settings, endpoint, providers);
  await egressFor(providers)
    .check(new URL(endpoint))
    .catch((error: unknown) => {
      // A name that does not resolve is reported by the request itself, as before.
      if (error instanceof AppError) throw error;
    });
  // The SDKs refuse to start without a key; servers that need none ignore this one.
  const apiKey = secret ?? PLACEHOLDER_KEY;
  const fetch = egressFor(providers).fetchFunction as typeof globalThis.fetch;
  if (settings.provider === "anthropic") {
    const { ChatAnthropic } = await providerModules.anthropic();
    const model = new ChatAnthropic({
      model: settings.model,
      apiKey,
      // The SDK appends /v1/messages to this URL.
      anthropicApiUrl: endpoint,
      temperature: settings.temperature,
      maxTokens: settings.max_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      streamUsage: true,
      maxRetries: MAX_RETRIES,
      clientOptions: { timeout: REQUEST_TIMEOUT_MS, fetch },
    });
    return { model, secret };
  }
  const { ChatOpenAI } = await providerModules.openai();
  const model = new ChatOpenAI({
    model: settings.model,
    apiKey,
    configuration: { baseURL: endpoint, fetch },
    temperature: settings.temperature,
    maxTokens: settings.max_tokens,
    // Asks for stream_options.include_usage, so streamed answers report token counts too.
    streamUsage: true,
    maxRetries: MAX_RETRIES,
    timeout: REQUEST_TIMEOUT_MS,
  });
  return { model, secret };
}

async function toMessages(turn: ChatTurn): Promise<BaseMessage[]> {
  const { HumanMessage, SystemMessage } = await providerModules.messages();
  const messages: BaseMessage[] = [];
  if (turn.system?.trim()) messages.push(new SystemMessage(turn.system));
  messages.push(new HumanMessage(turn.prompt));
  return messages;
}

function usageOf(message: { usage_metadata?: { input_tokens?: number; output_tokens?: number } }): TokenUsage {
  return {
    input_tokens: message.usage_metadata?.input_tokens ?? 0,
    output_tokens: message.usage_metadata?.output_tokens ?? 0,
  };
}

/** Streams a completion; onToken gets each text chunk as it arrives. */
export async function streamChat(
  settings: ModelSettings,
  turn: ChatTurn,
  providers: ProviderConfig,
  onToken: (text: string) => void,
  signal?: AbortSignal,
): Promise<ChatOutcome> {
  const { model, secret } = await openModel(settings, providers);
  let text = "";
  const usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
  try {
    const stream = await model.stream(await toMessages(turn), { signal });
    for await (const chunk of stream) {
      const piece = chunk.text;
      if (piece) {
        text += piece;
        onToken(piece);
      }
      // Providers spread usage over chunks (Anthropic: input at the start, output at the end;
      // OpenAI: one final chunk), so adding them up is what concatenating the chunks would do.
      const part = usageOf(chunk);
      usage.input_tokens += part.input_tokens;
      usage.output_tokens += part.output_tokens;
    }
  } catch (error) {
    throw providerError(error, settings.provider, secret, signal);
  }
  return { text, usage };
}

/** A structured answer that matches a JSON Schema (checked with Ajv, see answer-schema.ts); no token streaming needed. */
export async function structuredChat(
  settings: ModelSettings,
  turn: ChatTurn,
  jsonSchema: Record<string, unknown>,
  providers: ProviderConfig,
  signal?: AbortSignal,
): Promise<{ value: Record<string, unknown>; usage: TokenUsage }> {
  // The validator refuses such schemas; this guards a caller that skipped it, before any request.
  const unusable = answerSchemaProblem(jsonSchema);
  if (unusable) throw new Error(`json_schema ${unusable}`);
  const { model, secret } = await openModel(settings, providers);
  // Function calling for both providers (a forced tool call named "answer"; Anthropic's
  // tool_use). For OpenAI it is preferred over `response_format: json_schema` because that
  // path parses the answer inside the OpenAI SDK, so a non-JSON answer surfaces as a
  // SyntaxError that LangChain retries and that looks like a provider failure; with tools the
  // parsing stays in LangChain. Tools are also what OpenAI-compatible servers support most
  // widely. `title` is dropped because LangChain would use it as the function name.
  // includeRaw keeps the raw message for its usage, and turns a parse failure into
  // `parsed: null` instead of an exception we could not tell apart from a provider error.
  const { title: _title, ...schema } = jsonSchema;
  const runnable = model.withStructuredOutput(schema, { name: "answer", method: "functionCalling", includeRaw: true });
  let result: { raw: BaseMessage; parsed: unknown };
  try {
    result = await runnable.invoke(await toMessages(turn), { signal });
  } catch (error) {
    throw providerError(error, settings.provider, secret, signal);
  }
  const { raw, parsed } = result;
  const problems = isPlainObject(parsed) ? checkAnswer(parsed, jsonSchema) : ["the answer is not a JSON object"];
  if (problems.length > 0 || !isPlainObject(parsed)) {
    throw new AppError(
      "LLM_OUTPUT_INVALID",
      { provider: settings.provider, problems, output: clip(await rawAnswer(raw, parsed)) },
      `The model's answer does not match the schema: ${problems.join("; ")}.`,
    );
  }
  return { value: parsed, usage: usageOf(raw as { usage_metadata?: TokenUsage }) };
}

/** What the model actually said, for the error details: tool arguments or plain text. */
async function rawAnswer(raw: BaseMessage, parsed: unknown): Promise<string> {
  if (parsed !== null && parsed !== undefined) return JSON.stringify(parsed);
  const { AIMessage } = await providerModules.messages();
  if (AIMessage.isInstance(raw)) {
    const invalid = raw.invalid_tool_calls?.[0]?.args;
    if (typeof invalid === "string" && invalid) return invalid;
    const call = raw.tool_calls?.[0];
    if (call) return JSON.stringify(call.args);
  }
  return raw.text;
}

function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A provider failure as LLM_FAILED, with the provider's own words and status. An abort is
 * passed through untouched: the runtime knows it cancelled and reports that itself.
 */
function providerError(error: unknown, provider: ProviderName, secret: string | null, signal?: AbortSignal): unknown {
  if (signal?.aborted || error instanceof AppError) return error;
  const refused = egressRefusalIn(error);
  if (refused) return refused;
  const fields = (typeof error === "object" && error !== null ? error : {}) as {
    status?: unknown;
    message?: unknown;
    cause?: { code?: unknown };
  };
  let message = typeof fields.message === "string" && fields.message ? fields.message : String(error);
  // "Connection error." alone hides why; the socket error code (ECONNREFUSED, …) says it.
  if (typeof fields.cause?.code === "string" && !message.includes(fields.cause.code)) {
    message = `${message} (${fields.cause.code})`;
  }
  // Some providers echo the key they were given; it must not reach run events or logs.
  if (secret) message = message.split(secret).join("[redacted]");
  const status = typeof fields.status === "number" ? fields.status : undefined;
  return new AppError(
    "LLM_FAILED",
    { provider, ...(status !== undefined ? { status } : {}), message },
    `The ${provider} request failed: ${message}`,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
