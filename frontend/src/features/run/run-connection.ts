// The editor's run channel (WebSocket /ws/run): signs in with the session's token, sends the panel's
// requests, hands the events it receives to the panel, and when the socket drops it opens a new one
// and follows each run again from the last seq the panel has, so no event is lost or repeated.
import type { EventError, RunEvent } from "./run-types";

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export type ClientMessage =
  | { type: "start"; workflow_id: string; version?: number; input?: object; mode?: "full" | "step"; pins?: object }
  | { type: "start_document"; document: unknown; input?: object; mode?: "full" | "step"; pins?: object }
  | { type: "continue"; run_id: string }
  | { type: "resume"; run_id: string; input: Record<string, unknown> }
  | { type: "cancel"; run_id: string }
  | { type: "follow"; run_id: string; after: number };

type ServerMessage =
  | { type: "ready" }
  | { type: "started"; run_id: string }
  | { type: "event"; event: RunEvent }
  | { type: "error"; run_id?: string; error: EventError };

export interface RunConnectionOptions {
  url: string;
  token(): string | null;
  /** Seq of the last event the panel has for a run (to follow it again after a reconnect). */
  lastSeq(runId: string): number;
  onEvent(event: RunEvent): void;
  onStarted(runId: string): void;
  onError(error: EventError, runId: string | undefined): void;
  onState(state: ConnectionState): void;
  /** The server closed the socket because the session is over. */
  onSessionEnded(): void;
  /** Waits between attempts; the default backs off from 0.5 s to 5 s. */
  retryDelayMs?(attempt: number): number;
  WebSocket?: typeof WebSocket;
}

const CLOSE_UNAUTHORIZED = 4401;

export class RunConnection {
  readonly #options: RunConnectionOptions;
  readonly #followed = new Set<string>();
  #socket: WebSocket | null = null;
  #ready = false;
  #queue: ClientMessage[] = [];
  #attempt = 0;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(options: RunConnectionOptions) {
    this.#options = options;
  }

  /** Sends now if the socket is signed in, else as soon as it is (opening it again after close()). */
  send(message: ClientMessage): void {
    // A page's effects may close the channel and use it again (React's StrictMode does in development).
    this.#closed = false;
    if (message.type === "follow") this.#followed.add(message.run_id);
    if (this.#ready && this.#socket?.readyState === 1) this.#socket.send(JSON.stringify(message));
    else {
      this.#queue.push(message);
      this.#open();
    }
  }

  /** Follows a run's events after `after` (and again after every reconnect). */
  follow(runId: string, after: number): void {
    this.send({ type: "follow", run_id: runId, after });
  }

  /** Stops following a run (its events are still sent on this socket until it reopens). */
  forget(runId: string): void {
    this.#followed.delete(runId);
  }

  /** Closes the socket; it opens again only for a new request. */
  close(): void {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#socket?.close(1000, "closed");
    this.#socket = null;
    this.#options.onState("closed");
  }

  #open(): void {
    if (this.#closed || this.#socket || this.#retry) return;
    const token = this.#options.token();
    if (!token) {
      this.#options.onSessionEnded();
      return;
    }
    const Impl = this.#options.WebSocket ?? WebSocket;
    const socket = new Impl(this.#options.url);
    this.#socket = socket;
    this.#ready = false;
    this.#options.onState(this.#attempt === 0 ? "connecting" : "reconnecting");
    socket.onopen = () => socket.send(JSON.stringify({ type: "auth", token }));
    socket.onmessage = (message) => this.#receive(String(message.data));
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#ready = false;
      if (this.#closed) return;
      if (event.code === CLOSE_UNAUTHORIZED) {
        this.#endSession();
        return;
      }
      this.#options.onState("reconnecting");
      const delay = this.#options.retryDelayMs?.(this.#attempt) ?? Math.min(5000, 500 * 2 ** this.#attempt);
      this.#attempt++;
      this.#retry = setTimeout(() => {
        this.#retry = null;
        // Follow again from what the panel has; requests queued meanwhile go after.
        const again: ClientMessage[] = [...this.#followed].map((runId) => ({
          type: "follow",
          run_id: runId,
          after: this.#options.lastSeq(runId),
        }));
        this.#queue = [...again, ...this.#queue.filter((m) => m.type !== "follow")];
        this.#open();
      }, delay);
    };
  }

  #receive(raw: string): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(raw) as ServerMessage;
    } catch {
      return;
    }
    switch (message.type) {
      case "ready": {
        this.#ready = true;
        this.#attempt = 0;
        this.#options.onState("open");
        const queued = this.#queue;
        this.#queue = [];
        for (const m of queued) this.#socket?.send(JSON.stringify(m));
        return;
      }
      case "started":
        this.#followed.add(message.run_id);
        this.#options.onStarted(message.run_id);
        return;
      case "event":
        this.#options.onEvent(message.event);
        return;
      case "error":
        // The server refused the token this channel signed in with: the session is over (the
        // server would let another token try, but this channel has no other one).
        if (!this.#ready && message.error.code.startsWith("AUTH_")) {
          this.#endSession();
          return;
        }
        this.#options.onError(message.error, message.run_id);
        return;
    }
  }

  #endSession(): void {
    this.#closed = true;
    const socket = this.#socket;
    this.#socket = null;
    socket?.close(1000, "signed out");
    this.#options.onState("closed");
    this.#options.onSessionEnded();
  }
}

/** The socket's address on the page's own host. */
export function runSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws/run`;
}
