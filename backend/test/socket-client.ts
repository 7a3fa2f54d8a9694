// A client of the editor's run socket (/ws/run) for tests: it records every message and waits for
// the one a test needs, failing when the socket closes without it.
import { WebSocket } from "ws";

export interface SocketMessage {
  type: string;
  run_id?: string;
  event?: { type: string; seq: number; data: Record<string, unknown> };
  error?: { code: string };
}

/** A socket client that collects messages and waits for the one a test needs. */
export class SocketClient {
  readonly messages: SocketMessage[] = [];
  readonly socket: WebSocket;
  closeCode: number | null = null;
  /** Resolves with the close code when the server closes the socket. */
  readonly closed: Promise<number>;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on("message", (raw) => this.messages.push(JSON.parse(String(raw)) as SocketMessage));
    this.closed = new Promise((resolve) =>
      this.socket.on("close", (code) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once("open", () => resolve());
      this.socket.once("error", reject);
    });
  }

  send(message: object): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The first message (received or to come) that matches; fails if the socket closes without one. */
  waitFor(match: (m: SocketMessage) => boolean): Promise<SocketMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(match);
        if (!found) return;
        this.socket.off("message", onMessage);
        this.socket.off("close", onClose);
        resolve(found);
      };
      // Listeners run in order: this one after the constructor's, which records the message.
      const onMessage = () => check();
      const onClose = () => {
        check();
        reject(new Error(`the socket closed without a matching message; got ${JSON.stringify(this.messages)}`));
      };
      this.socket.on("message", onMessage);
      this.socket.once("close", onClose);
      check();
      if (this.closeCode !== null) onClose();
    });
  }
}
