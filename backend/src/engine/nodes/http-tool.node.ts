// HTTP request tool: templates rendered from state, a timeout, a response size cap, and the
// idempotency headers that let the receiver apply a retried call once. Requests (and every
// redirect hop) go through the egress policy.
import { egressClientFor } from "../../core/egress/egress-client.js";
import { AppError } from "../../core/errors.js";
import { LinkedAbort } from "../../core/linked-abort.js";
import type { StoredCredential } from "../../schemas/credential.schema.js";
import { credentialFor } from "../runtime/run-credentials.js";
import { renderText, renderValue } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { Executor } from "./node-execution.js";

type ToolNode = Extract<TypedNode, { type: "tool" }>;

/** The header a stored HTTP credential adds (it wins over a header of the same name). */
function authenticate(headers: Headers, credential: Extract<StoredCredential, { type: `http_${string}` }>): void {
  switch (credential.type) {
    case "http_bearer":
      headers.set("authorization", `Bearer ${credential.data.token}`);
      return;
    case "http_basic":
      headers.set(
        "authorization",
        `Basic ${Buffer.from(`${credential.data.username}:${credential.data.password}`).toString("base64")}`,
      );
      return;
    case "http_header":
      headers.set(credential.data.name, credential.data.value);
  }
}

async function readCapped(response: Response, limit: number): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > limit) throw new AppError("HTTP_TOOL_RESPONSE_TOO_LARGE", { limit, content_length: declared });
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) throw new AppError("HTTP_TOOL_RESPONSE_TOO_LARGE", { limit });
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export const executeHttpTool: Executor<ToolNode> = async ({ node, scope, ctx, key }) => {
  const data = node.data;
  if (data.kind !== "http") throw new AppError("NODE_FAILED", null, "not an HTTP tool");
  const url = renderText(data.url, scope);
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw new AppError("HTTP_TOOL_FAILED", { url }, `The URL "${url}" is not an http(s) URL.`);
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(data.headers)) headers.set(name, renderText(value, scope));
  if (data.credential_id) {
    authenticate(
      headers,
      credentialFor(ctx.credentials, data.credential_id, ["http_bearer", "http_basic", "http_header"]),
    );
  }
  headers.set("Idempotency-Key", key);
  headers.set("X-Studio-Run-Id", ctx.runId);
  headers.set("X-Studio-Attempt", String(ctx.attempt));
  let body: string | undefined;
  if (data.body !== undefined && data.method !== "GET" && data.method !== "HEAD") {
    const rendered = renderValue(data.body, scope);
    body = typeof rendered === "string" ? rendered : JSON.stringify(rendered);
    if (typeof rendered !== "string" && !headers.has("content-type")) headers.set("content-type", "application/json");
  }
  // The call's own signal (the run's cancel and the call's timeout), let go of when the call ends:
  // AbortSignal.timeout() and AbortSignal.any() kept it, and what the request's listeners hold,
  // until the timeout passed (see linked-abort.ts).
  const call = new LinkedAbort([ctx.signal]);
  call.abortAfter(data.timeout_ms, () => new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  let response: Response;
  let raw: Buffer;
  try {
    try {
      response = await egressClientFor(ctx.engine.egressAllow).fetch(url, {
        method: data.method,
        headers,
        body,
        signal: call.signal,
        redirect: "follow",
      });
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (error instanceof AppError) throw error;
      if (call.signal.aborted) throw new AppError("HTTP_TOOL_TIMEOUT", { url, timeout_ms: data.timeout_ms });
      throw new AppError("HTTP_TOOL_FAILED", {
        url,
        reason: error instanceof Error ? ((error.cause as Error)?.message ?? error.message) : String(error),
      });
    }
    raw = await readCapped(response, data.max_response_bytes);
  } finally {
    call.dispose();
  }
  const text = raw.toString("utf8");
  const isJson = (response.headers.get("content-type") ?? "").includes("json");
  let parsed: unknown = text;
  if (isJson && text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) {
    throw new AppError(
      "HTTP_TOOL_STATUS",
      { url, status: response.status, body: text.slice(0, 2000) },
      `The request was answered with HTTP ${response.status}.`,
    );
  }
  return { [data.output_field]: parsed };
};
