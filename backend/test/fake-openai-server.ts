// A local stand-in for an OpenAI-compatible Chat Completions server, so provider tests never
// leave 127.0.0.1. It speaks just enough of the wire format for ChatOpenAI: plain and streamed
// (SSE) completions, usage in the last chunk when asked for, `response_format: json_schema`
// answers and forced function calls. Every request is recorded for the test to inspect.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface FakeReply {
  /** Answer text; streamed one word (with its leading space) per chunk unless `tokens` is given. */
  text?: string;
  tokens?: string[];
  /** A structured answer: a tool call when the request forces one, otherwise JSON text. */
  json?: unknown;
  /** An HTTP error status; `error` is the message in the OpenAI error body. */
  status?: number;
  error?: string;
  /** Pause before each streamed chunk. */
  delayMs?: number;
  /** Stream this many tokens, then nothing more until the client hangs up (to abort mid-stream). */
  stallAfter?: number;
  usage?: { input_tokens: number; output_tokens: number };
  /** Never answer: the request stays open until the client goes away (a test kills it meanwhile). */
  hold?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the JSON body.
  body: any;
  /** True when the client hung up before the answer was complete (e.g. an abort). */
  closedEarly: boolean;
}

export interface FakeServer {
  /** The base URL to configure, e.g. http://127.0.0.1:1234/v1 */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  reply?: (request: RecordedRequest) => FakeReply;
}

/** Reads a request's JSON body and notes when the client hangs up before the answer is done. */
export async function recordRequest(req: IncomingMessage, res: ServerResponse): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  const record: RecordedRequest = {
    method: req.method ?? "",
    path: req.url ?? "",
    headers: req.headers,
    body: raw ? JSON.parse(raw) : null,
    closedEarly: false,
  };
  res.on("close", () => {
    if (!res.writableFinished) record.closedEarly = true;
  });
  return record;
}

/** Sends nothing more; resolves when the client has hung up. */
export function stall(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.once("close", () => resolve());
  });
}

/** Words with their leading whitespace, so joining the tokens gives back the text. */
export function splitTokens(text: string): string[] {
  return text.match(/\s*\S+\s*$|\s*\S+/g) ?? [];
}

export async function createFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeServer> {
  const reply: (request: RecordedRequest) => FakeReply = options.reply ?? (() => ({ text: "Hello from the fake." }));
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req, res) => {
    const record = await recordRequest(req, res);
    requests.push(record);

    const path = record.path.split("?")[0];
    if (record.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      sendError(res, 404, `No route ${record.method} ${path}`);
      return;
    }
    const answer = reply(record);
    if (answer.hold) return;
    if (answer.status !== undefined && answer.status >= 400) {
      sendError(res, answer.status, answer.error ?? "fake failure");
      return;
    }
    if (record.body?.stream === true) await stream(res, record, answer);
    else complete(res, record, answer);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message, type: "fake_error", param: null, code: null } }));
}

/** The function the request forces (withStructuredOutput's function-calling method), if any. */
function forcedFunction(record: RecordedRequest): string | null {
  const name = record.body?.tool_choice?.function?.name;
  return typeof name === "string" ? name : null;
}

function answerText(answer: FakeReply): string {
  if (answer.text !== undefined) return answer.text;
  if (answer.tokens !== undefined) return answer.tokens.join("");
  return answer.json !== undefined ? JSON.stringify(answer.json) : "";
}

function usageOf(answer: FakeReply, outputTokens: number) {
  const input = answer.usage?.input_tokens ?? 10;
  const output = answer.usage?.output_tokens ?? outputTokens;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

function complete(res: ServerResponse, record: RecordedRequest, answer: FakeReply): void {
  const fn = forcedFunction(record);
  const text = answerText(answer);
  const message =
    fn !== null
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: fn, arguments: text } }],
        }
      : { role: "assistant", content: text };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: record.body?.model,
      choices: [{ index: 0, message, finish_reason: fn !== null ? "tool_calls" : "stop" }],
      usage: usageOf(answer, splitTokens(text).length),
    }),
  );
}

async function stream(res: ServerResponse, record: RecordedRequest, answer: FakeReply): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const base = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: record.body?.model,
  };
  const send = (payload: object) => res.write(`data: ${JSON.stringify({ ...base, ...payload })}\n\n`);
  const delta = (d: object, finish: string | null = null) =>
    send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

  const fn = forcedFunction(record);
  const text = answerText(answer);
  const tokens = answer.tokens ?? splitTokens(text);
  delta({ role: "assistant", content: "" });
  if (fn !== null) {
    delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: fn, arguments: "" } }] });
  }
  for (const [i, token] of tokens.entries()) {
    if (i === answer.stallAfter) return stall(res);
    if (answer.delayMs) await sleep(answer.delayMs);
    if (res.destroyed) return; // the client hung up: stop like a real server would
    delta(fn !== null ? { tool_calls: [{ index: 0, function: { arguments: token } }] } : { content: token });
  }
  delta({}, fn !== null ? "tool_calls" : "stop");
  if (record.body?.stream_options?.include_usage === true) {
    send({ choices: [], usage: usageOf(answer, tokens.length) });
  }
  res.end("data: [DONE]\n\n");
}
