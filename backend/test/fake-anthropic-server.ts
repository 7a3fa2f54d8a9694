// A local stand-in for the Anthropic Messages API, so provider tests never leave 127.0.0.1.
// It speaks the parts ChatAnthropic uses: plain and streamed (SSE event) messages and forced
// tool use, which is how withStructuredOutput asks Claude for a structured answer.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type FakeReply,
  type FakeServer,
  type RecordedRequest,
  recordRequest,
  splitTokens,
  stall,
} from "./fake-openai-server.js";

export type { FakeReply, FakeServer, RecordedRequest };

export interface FakeAnthropicOptions {
  reply?: (request: RecordedRequest) => FakeReply;
}

export async function createFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeServer> {
  const reply: (request: RecordedRequest) => FakeReply = options.reply ?? (() => ({ text: "Hello from the fake." }));
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req, res) => {
    const record = await recordRequest(req, res);
    requests.push(record);

    const path = record.path.split("?")[0];
    if (record.method !== "POST" || path !== "/v1/messages") {
      sendError(res, 404, "not_found_error", `No route ${record.method} ${path}`);
      return;
    }
    const answer = reply(record);
    if (answer.hold) return;
    if (answer.status !== undefined && answer.status >= 400) {
      const type = answer.status === 401 ? "authentication_error" : "api_error";
      sendError(res, answer.status, type, answer.error ?? "fake failure");
      return;
    }
    if (record.body?.stream === true) await stream(res, record, answer);
    else complete(res, record, answer);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // The Anthropic SDK appends /v1/messages itself.
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ type: "error", error: { type, message } }));
}

/** The tool the request forces (tool_choice {type:"tool"}), if any. */
function forcedTool(record: RecordedRequest): string | null {
  const choice = record.body?.tool_choice;
  return choice?.type === "tool" && typeof choice.name === "string" ? choice.name : null;
}

function answerText(answer: FakeReply): string {
  if (answer.text !== undefined) return answer.text;
  if (answer.tokens !== undefined) return answer.tokens.join("");
  return answer.json !== undefined ? JSON.stringify(answer.json) : "";
}

function complete(res: ServerResponse, record: RecordedRequest, answer: FakeReply): void {
  const tool = forcedTool(record);
  const text = answerText(answer);
  const content =
    tool !== null
      ? [{ type: "tool_use", id: "toolu_fake", name: tool, input: answer.json ?? {} }]
      : [{ type: "text", text }];
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: record.body?.model,
      content,
      stop_reason: tool !== null ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: answer.usage?.input_tokens ?? 10,
        output_tokens: answer.usage?.output_tokens ?? splitTokens(text).length,
      },
    }),
  );
}

async function stream(res: ServerResponse, record: RecordedRequest, answer: FakeReply): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (type: string, payload: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);

  const tool = forcedTool(record);
  const text = answerText(answer);
  const tokens = answer.tokens ?? splitTokens(text);
  send("message_start", {
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: record.body?.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // The real API reports a token or so here and the full count in message_delta;
      // LangChain adds both, so the fake says 0 to keep the expected totals exact.
      usage: { input_tokens: answer.usage?.input_tokens ?? 10, output_tokens: 0 },
    },
  });
  send("content_block_start", {
    index: 0,
    content_block:
      tool !== null ? { type: "tool_use", id: "toolu_fake", name: tool, input: {} } : { type: "text", text: "" },
  });
  for (const [i, token] of tokens.entries()) {
    if (i === answer.stallAfter) return stall(res);
    if (answer.delayMs) await sleep(answer.delayMs);
    if (res.destroyed) return; // the client hung up: stop like a real server would
    send("content_block_delta", {
      index: 0,
      delta: tool !== null ? { type: "input_json_delta", partial_json: token } : { type: "text_delta", text: token },
    });
  }
  send("content_block_stop", { index: 0 });
  send("message_delta", {
    delta: { stop_reason: tool !== null ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: answer.usage?.output_tokens ?? tokens.length },
  });
  send("message_stop", {});
  res.end();
}
