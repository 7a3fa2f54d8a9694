// Helpers for engine tests: engine settings, a local HTTP receiver, and event collection.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type EngineConfig, loadConfig } from "../src/core/config.js";
import type { StudioEvent } from "../src/engine/runtime/events.js";
import type { RunOutcome } from "../src/engine/runtime/runtime.js";

/**
 * Engine settings for tests. The fake services tests talk to listen on loopback, so loopback is
 * allowed the way an administrator allows a local service (STUDIO_EGRESS_ALLOW); tests of the
 * egress policy itself pass `egressAllow: []`.
 */
export function engineConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return { ...loadConfig({ STUDIO_EGRESS_ALLOW: "127.0.0.1" }, false).engine, ...overrides };
}

export async function collect(
  run: AsyncGenerator<StudioEvent, RunOutcome>,
): Promise<{ events: StudioEvent[]; outcome: RunOutcome }> {
  const events: StudioEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, outcome: next.value };
    events.push(next.value);
  }
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** How many requests carried each Idempotency-Key. */
  countsByKey(): Map<string, number>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server. `reply` decides each answer; by default it echoes
 * {"path", "body", "n"} as JSON.
 */
export async function startReceiver(
  reply: (
    request: ReceivedRequest,
    n: number,
  ) => { status?: number; json?: unknown; text?: string; delayMs?: number } = (r, n) => ({
    json: { path: r.path, body: r.body, n },
  }),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {}
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(request);
      const answer = reply(request, requests.length);
      const send = () => {
        if (res.destroyed) return;
        if (answer.text !== undefined) {
          res.writeHead(answer.status ?? 200, { "content-type": "text/plain" }).end(answer.text);
        } else {
          res
            .writeHead(answer.status ?? 200, { "content-type": "application/json" })
            .end(JSON.stringify(answer.json ?? null));
        }
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    countsByKey: () => {
      const counts = new Map<string, number>();
      for (const r of requests) {
        const key = String(r.headers["idempotency-key"] ?? "");
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const at = { x: 0, y: 0 };

export function httpTool(id: string, url: string, outputField: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    type: "tool",
    position: at,
    data: { kind: "http", method: "POST", url, output_field: outputField, ...extra },
  };
}

export function edge(source: string, target: string, label?: string) {
  return { id: `${source}-${target}${label ? `-${label}` : ""}`, source, target, ...(label ? { label } : {}) };
}

export function eventsOf(events: StudioEvent[], type: StudioEvent["type"], nodeId?: string): StudioEvent[] {
  return events.filter((e) => e.type === type && (nodeId === undefined || e.node_id === nodeId));
}

/** A workflow that waits at a Human node `ask` for one required boolean, written to `answer`. */
export function approvalWorkflow(options: { field?: string; timeoutSeconds?: number } = {}) {
  return {
    name: "approval",
    state: [{ name: "answer", type: "object" }],
    nodes: [
      {
        id: "ask",
        type: "human",
        position: at,
        data: {
          message: "OK?",
          fields: [{ name: options.field ?? "ok", type: "boolean", required: true }],
          output_field: "answer",
          ...(options.timeoutSeconds ? { timeout_seconds: options.timeoutSeconds } : {}),
        },
      },
    ],
    edges: [edge("start", "ask")],
  };
}
