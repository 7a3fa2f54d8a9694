import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { approvalWorkflow, edge } from "../../test/engine-harness.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

interface Message {
  type: string;
  run_id?: string;
  event?: { type: string; seq: number; data: Record<string, unknown> };
  error?: { code: string };
}

/** A socket client that collects messages and waits for the one a test needs. */
class Client {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;
  closeCode: number | null = null;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on("message", (raw) => this.messages.push(JSON.parse(String(raw)) as Message));
    this.socket.on("close", (code) => {
      this.closeCode = code;
    });
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

  async waitFor(match: (m: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(this.messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const approval = approvalWorkflow();

describe("editor socket /ws/run", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let base: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    base = `ws://127.0.0.1:${(studio.app.server.address() as { port: number }).port}/ws/run`;
  });
  afterAll(async () => {
    for (const client of clients) client.socket.close();
    await studio.close();
  });

  const connect = async (query = "") => {
    const client = new Client(`${base}${query}`);
    clients.push(client);
    await client.opened();
    return client;
  };

  it("runs an unsaved document, streams its events, and resumes it on the same socket", async () => {
    const client = await connect();
    client.send({ type: "start_document", document: approval });
    expect((await client.waitFor((m) => m.type === "error")).error?.code).toBe("AUTH_REQUIRED");
    client.send({ type: "auth", token: owner.token });
    await client.waitFor((m) => m.type === "ready");
    client.send({ type: "start_document", document: approval, input: {} });
    const started = await client.waitFor((m) => m.type === "started");
    const waiting = await client.waitFor((m) => m.event?.type === "run_waiting");
    expect(waiting.event?.data).toMatchObject({ node_id: "ask", message: "OK?" });
    client.send({ type: "resume", run_id: started.run_id as string, input: { ok: true } });
    await client.waitFor((m) => m.event?.type === "run_finished");
    const seqs = client.messages.filter((m) => m.type === "event").map((m) => m.event?.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => (a as number) - (b as number)));
    expect(new Set(seqs).size).toBe(seqs.length);
    const run = (
      await studio.app.inject({ method: "GET", url: `/api/runs/${started.run_id}`, headers: owner.auth })
    ).json().data;
    expect(run).toMatchObject({ status: "ok", trigger: "editor", workflow_id: null, state: { answer: { ok: true } } });
  });

  it("refuses another user's run and bad messages with catalog codes", async () => {
    const mine = await connect(`?token=${owner.token}`);
    await mine.waitFor((m) => m.type === "ready");
    mine.send({ type: "start_document", document: approval });
    const started = await mine.waitFor((m) => m.type === "started");

    const theirs = await connect(`?token=${other.token}`);
    await theirs.waitFor((m) => m.type === "ready");
    theirs.send({ type: "resume", run_id: started.run_id as string, input: { ok: true } });
    expect((await theirs.waitFor((m) => m.type === "error")).error?.code).toBe("RUN_NOT_FOUND");
    theirs.send("{not json" as unknown as object);
    await theirs.waitFor((m) => m.error?.code === "INVALID_JSON");
    theirs.send({ type: "launch" });
    await theirs.waitFor((m) => m.error?.code === "VALIDATION_FAILED");
    theirs.send({ type: "start_document", document: { name: "bad", edges: [edge("start", "ghost")] } });
    await theirs.waitFor((m) => m.error?.code === "WORKFLOW_INVALID");
  });

  it("closes a socket whose token is not valid", async () => {
    const client = await connect("?token=not-a-token");
    await client.waitFor((m) => m.error?.code === "AUTH_INVALID_TOKEN");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.closeCode).toBe(4401);
  });
});
