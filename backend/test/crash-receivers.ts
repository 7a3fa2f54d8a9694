// The receivers of a crash test's side effects, on loopback: an HTTP server (HTTP tools), a fake
// OpenAI server (LLM nodes) and an in-process SMTP server (Send email). Each records every call it
// got with the key it can be told apart by: the Idempotency-Key header, the prompt, the
// Message-ID. A test can have the first calls carrying a mark held unanswered, so the process
// that made them can be killed while they are in flight.
import { createServer, type Server, type ServerResponse } from "node:http";
import { SMTPServer } from "smtp-server";
import { createFakeOpenAI, type FakeServer } from "./fake-openai-server.js";

export type Channel = "http" | "llm" | "email";

export interface ReceivedCall {
  channel: Channel;
  /** The run that made the call, when the call names it (HTTP and email headers). */
  runId: string | null;
  /** The text the call carried (URL, prompt, message), for marks and run tags. */
  text: string;
  /** What a repeat of the same call shares: Idempotency-Key, prompt, Message-ID. */
  key: string;
  /** X-Studio-Attempt (HTTP only). */
  attempt: string | null;
}

export interface Receivers {
  httpUrl: string;
  llmUrl: string;
  smtpUrl: string;
  calls: ReceivedCall[];
  /**
   * Holds the first `count` calls whose text contains `mark` unanswered; resolves once they have
   * all arrived. Later calls with the mark are answered.
   */
  hold(mark: string, count: number): Promise<void>;
  close(): Promise<void>;
}

interface HoldRule {
  mark: string;
  left: number;
  resolve(): void;
}

/** The answer of the fake model: names the node and item the prompt asked about, nothing run-specific. */
export function modelAnswer(prompt: string): string {
  const node = /node=(\S+)/.exec(prompt)?.[1] ?? "?";
  const item = /item=(\S*)/.exec(prompt)?.[1] ?? "";
  return `answer of ${node}${item ? ` for ${item}` : ""}`;
}

function header(raw: string, name: string): string | null {
  return new RegExp(`^${name}:\\s*(.+)$`, "im").exec(raw)?.[1]?.trim() ?? null;
}

export async function startReceivers(): Promise<Receivers> {
  const calls: ReceivedCall[] = [];
  const rules: HoldRule[] = [];
  /** Records a call; true when it is to be held. */
  const receive = (call: ReceivedCall): boolean => {
    calls.push(call);
    const rule = rules.find((r) => r.left > 0 && call.text.includes(r.mark));
    if (!rule) return false;
    rule.left -= 1;
    if (rule.left === 0) rule.resolve();
    return true;
  };

  const held = new Set<ServerResponse>();
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://receiver");
      const hold = receive({
        channel: "http",
        runId: String(req.headers["x-studio-run-id"] ?? "") || null,
        text: `${url.pathname}${url.search}`,
        key: String(req.headers["idempotency-key"] ?? ""),
        attempt: String(req.headers["x-studio-attempt"] ?? "") || null,
      });
      if (hold) {
        held.add(res);
        return;
      }
      const raw = Buffer.concat(chunks).toString("utf8");
      // The path without the query: the answer is the same for every run of a workflow.
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ path: url.pathname, got: raw ? JSON.parse(raw) : null }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));

  const llm: FakeServer = await createFakeOpenAI({
    reply: (request) => {
      const messages = (request.body?.messages ?? []) as { content: unknown }[];
      const prompt = String(messages.at(-1)?.content ?? "");
      const hold = receive({ channel: "llm", runId: null, text: prompt, key: prompt, attempt: null });
      return hold ? { hold: true } : { text: modelAnswer(prompt) };
    },
  });

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const hold = receive({
          channel: "email",
          runId: header(raw, "X-Studio-Run-Id"),
          text: raw,
          key: header(raw, "Message-ID") ?? "",
          attempt: null,
        });
        // A held message was received whole but never acknowledged: the sender cannot know.
        if (!hold) callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));

  return {
    httpUrl: `http://127.0.0.1:${(http.address() as { port: number }).port}`,
    llmUrl: llm.url,
    smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`,
    calls,
    hold: (mark, count) => new Promise<void>((resolve) => rules.push({ mark, left: count, resolve })),
    close: async () => {
      for (const res of held) res.destroy();
      http.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        llm.close(),
        new Promise<void>((resolve) => smtp.close(() => resolve())),
      ]);
    },
  };
}

/** A run as the receivers see it: its id, and the tag its calls carry where they cannot say the id. */
export interface RunRef {
  runId: string;
  tag: string;
}

/** Run ids and tags out of a text, so two runs of one workflow can be compared. */
export function normalise(text: string, run: RunRef): string {
  return text.split(run.runId).join("<run>").split(run.tag).join("<tag>");
}

export function callsOf(receivers: Receivers, run: RunRef): ReceivedCall[] {
  return receivers.calls.filter((c) => c.runId === run.runId || (c.runId === null && c.text.includes(run.tag)));
}

/** How many times each call (by its normalised key) reached its receiver. */
export function callCounts(receivers: Receivers, run: RunRef): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of callsOf(receivers, run)) {
    const key = `${c.channel} ${normalise(c.key, run)}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
