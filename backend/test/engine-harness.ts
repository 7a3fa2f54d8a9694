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
 * A loopback HTTP server. `reply` decides each answer (or holds the request unanswered); by
 * default it echoes {"path", "body", "n"} as JSON.
 */
export async function startReceiver(
  reply: (request: ReceivedRequest, n: number) => { status?: number; json?: unknown; text?: string; hold?: boolean } = (
    r,
    n,
  ) => ({
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
      // Never answered: the connection stays open until the client goes away or the receiver closes.
      if (answer.hold) return;
      if (res.destroyed) return;
      if (answer.text !== undefined) {
        res.writeHead(answer.status ?? 200, { "content-type": "text/plain" }).end(answer.text);
      } else {
        res
          .writeHead(answer.status ?? 200, { "content-type": "application/json" })
          .end(JSON.stringify(answer.json ?? null));
      }
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

/** A Condition node with one rule: `label` when `condition` holds, `defaultLabel` otherwise. */
export function conditionNode(
  id: string,
  label: string,
  condition: { field: string; operator: string; value?: unknown },
  defaultLabel: string,
) {
  return {
    id,
    type: "condition",
    position: at,
    data: { rules: [{ label, conditions: [condition] }], default_label: defaultLabel },
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

export interface Gate {
  url: string;
  /** Paths of the requests received so far, in arrival order. */
  arrivals: string[];
  /** The headers of each request, in the same order. */
  headers: IncomingMessage["headers"][];
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  /** Answers the oldest held request whose path is `path` (any path when omitted). */
  release(path?: string): void;
  releaseAll(): void;
  /** Answers every held request and, from now on, every new one at once. */
  open(): void;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that holds every request until the test releases it: a run whose HTTP
 * tool calls it stays running, in the order the test decides.
 */
export async function startGate(): Promise<Gate> {
  const arrivals: string[] = [];
  const headers: IncomingMessage["headers"][] = [];
  const held: { path: string; answer: () => void }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let isOpen = false;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url ?? "";
      arrivals.push(path);
      headers.push(req.headers);
      held.push({
        path,
        answer: () => {
          if (!res.destroyed) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path }));
        },
      });
      for (const waiter of waiters.filter((w) => arrivals.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (isOpen) for (const h of held.splice(0)) h.answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    headers,
    arrived: (count) =>
      arrivals.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    release: (path) => {
      const index = held.findIndex((h) => path === undefined || h.path === path);
      if (index < 0) throw new Error(`no held request for ${path ?? "any path"}; arrivals: ${arrivals.join(", ")}`);
      held.splice(index, 1)[0]?.answer();
    },
    releaseAll: () => {
      for (const h of held.splice(0)) h.answer();
    },
    open: () => {
      isOpen = true;
      for (const h of held.splice(0)) h.answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const h of held.splice(0)) h.answer();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A workflow whose one HTTP tool waits at `gate` (path `/<name>`) until the test releases it. */
export function gatedWorkflow(gateUrl: string, name: string) {
  return {
    name,
    state: [{ name: "reply", type: "any" }],
    nodes: [httpTool("wait", `${gateUrl}/${name}`, "reply", { timeout_ms: 120_000 })],
    edges: [edge("start", "wait")],
  };
}

/** A chain of `length` HTTP tool nodes to `gate` (paths `/<name>/step<i>`), each held until released. */
export function gatedChainWorkflow(gateUrl: string, name: string, length: number) {
  const ids = Array.from({ length }, (_, i) => `step${i + 1}`);
  return {
    name,
    state: ids.map((id) => ({ name: `${id}_reply`, type: "any" })),
    nodes: ids.map((id) => httpTool(id, `${gateUrl}/${name}/${id}`, `${id}_reply`, { timeout_ms: 120_000 })),
    edges: ids.map((id, i) => edge(i === 0 ? "start" : (ids[i - 1] as string), id)),
  };
}
