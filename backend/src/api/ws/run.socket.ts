// WebSocket /ws/run: the editor's run channel. The client signs in with its first message (or
// ?token=), then starts runs of a saved workflow or an unsaved document, continues, resumes and
// cancels them, and receives their events on the same socket. Runs started here are queued and
// limited like any other run. The credential is checked on every message; the socket closes with
// 4401 when it expires or is revoked.
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import { z } from "zod";
import type { Actor } from "../../core/authz.js";
import { AppError } from "../../core/errors.js";
import type { Container } from "../deps.js";
import { toAppError } from "../error-handlers.js";
import { LapsedError, SocketAuth } from "./socket-auth.js";

/** Close code for a socket whose credential is missing, invalid, expired or revoked. */
const CLOSE_UNAUTHORIZED = 4401;

const runRequest = {
  input: z.record(z.string(), z.unknown()).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  mode: z.enum(["full", "step"]).optional(),
};
const runId = z.string().min(1).max(100);
/** Pinned outputs by node id: those nodes do not execute (editor runs only). */
const pins = z.record(z.string().min(1).max(200), z.record(z.string(), z.unknown())).optional();
const clientMessage = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("auth"), token: z.string().min(1).max(4000) }),
  z.strictObject({
    type: z.literal("start"),
    workflow_id: runId,
    version: z.number().int().min(1).optional(),
    ...runRequest,
    pins,
  }),
  z.strictObject({ type: z.literal("start_document"), document: z.unknown(), ...runRequest, pins }),
  z.strictObject({ type: z.literal("continue"), run_id: runId }),
  z.strictObject({ type: z.literal("resume"), run_id: runId, input: z.record(z.string(), z.unknown()) }),
  z.strictObject({ type: z.literal("cancel"), run_id: runId }),
  z.strictObject({ type: z.literal("follow"), run_id: runId, after: z.number().int().min(0).default(0) }),
]);
type ClientMessage = z.infer<typeof clientMessage>;

function send(socket: WebSocket, message: object): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

function sendError(socket: WebSocket, error: unknown, ref?: string): void {
  const { code, message, details } = toAppError(error);
  send(socket, { type: "error", ...(ref ? { run_id: ref } : {}), error: { code, message, details } });
}

function parseMessage(raw: unknown): ClientMessage {
  let json: unknown;
  try {
    json = JSON.parse(String(raw));
  } catch {
    throw new AppError("INVALID_JSON");
  }
  const parsed = clientMessage.safeParse(json);
  if (!parsed.success) {
    throw new AppError(
      "VALIDATION_FAILED",
      parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    );
  }
  return parsed.data;
}

export async function registerRunSocket(app: FastifyInstance, c: Container): Promise<void> {
  app.get("/ws/run", { websocket: true, schema: { hide: true } }, (socket, request) => {
    const subscriptions = new Map<string, () => void>();
    const closeUnauthorized = (error: unknown) => {
      sendError(socket, error);
      socket.close(CLOSE_UNAUTHORIZED, "unauthorized");
    };
    const auth = new SocketAuth(c, closeUnauthorized);
    const follow = async (who: Actor, id: string, after: number) => {
      if (subscriptions.has(id)) return;
      const unsubscribe = await c.runs.follow(who, id, after, (event) => send(socket, { type: "event", event }));
      // The socket may have closed while the catch-up was read.
      if (socket.readyState !== socket.OPEN || subscriptions.has(id)) return unsubscribe();
      subscriptions.set(id, unsubscribe);
    };
    const signIn = async (token: string) => {
      await auth.signIn(token);
      send(socket, { type: "ready" });
    };
    const token = new URL(request.url, "http://socket").searchParams.get("token");
    const ready = token ? signIn(token).catch(closeUnauthorized) : Promise.resolve();

    socket.on("message", async (raw) => {
      await ready;
      let message: ClientMessage | null = null;
      try {
        message = parseMessage(raw);
        if (message.type === "auth") return await signIn(message.token);
        const who = await auth.actor();
        switch (message.type) {
          case "start":
          case "start_document": {
            const source =
              message.type === "start"
                ? { workflowId: message.workflow_id, version: message.version }
                : { document: message.document };
            const run = await c.runs.startEditorRun(
              who,
              source,
              { input: message.input, context: message.context, mode: message.mode },
              message.pins,
            );
            send(socket, { type: "started", run_id: run.id });
            return await follow(who, run.id, 0);
          }
          case "follow":
            return await follow(who, message.run_id, message.after);
          case "continue":
            await c.runs.continue(who, message.run_id);
            return await follow(who, message.run_id, 0);
          case "resume":
            await c.runs.resume(who, message.run_id, message.input);
            return await follow(who, message.run_id, 0);
          case "cancel":
            await c.runs.cancel(who, message.run_id);
            return;
        }
      } catch (error) {
        // A lapsed credential has already been reported and the socket is closing.
        if (error instanceof LapsedError) return;
        sendError(socket, error, message && "run_id" in message ? message.run_id : undefined);
      }
    });
    socket.on("close", () => {
      auth.close();
      for (const unsubscribe of subscriptions.values()) unsubscribe();
    });
  });
}
