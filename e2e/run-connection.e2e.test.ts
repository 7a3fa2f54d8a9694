// The editor's run channel (frontend RunConnection) against the built studio, without a browser:
// its socket goes through a loopback TCP relay the test can cut. A cut in the middle of a run is
// followed by a new socket that follows the run from the last event the client has, so the client
// ends with every event once, in seq order; a token the server refuses ends the session without
// retrying; a closed channel does not open again by itself.
import { createServer, type Server, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gate, gatedWorkflow, startGate } from "../backend/test/engine-harness.js";
import { type ConnectionState, RunConnection } from "../frontend/src/features/run/run-connection.js";
import type { EventError, RunEvent } from "../frontend/src/features/run/run-types.js";
import { createWorkflow, type E2EStudio, ownerToken, startE2EStudio } from "./studio.js";

/** A TCP relay on 127.0.0.1 to the studio's port; `cut()` drops every connection through it. */
async function startRelay(
  target: URL,
): Promise<{ url: string; cut(): void; connections(): number; close(): Promise<void> }> {
  const open = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((client) => {
    count++;
    const upstream = new Socket();
    upstream.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => open.delete(socket));
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/ws/run`,
    cut: () => {
      for (const socket of open) socket.destroy();
    },
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A channel whose events, states and errors the test reads; states are awaited by name. */
function channel(url: string, token: string | null) {
  const events: RunEvent[] = [];
  const states: ConnectionState[] = [];
  const errors: EventError[] = [];
  const started: string[] = [];
  let sessionEnded = 0;
  const waiters: { check: () => boolean; resolve: () => void }[] = [];
  const wake = () => {
    for (const waiter of waiters.filter((w) => w.check())) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const connection = new RunConnection({
    url,
    token: () => token,
    lastSeq: (runId) => events.filter((e) => e.run_id === runId).reduce((max, e) => Math.max(max, e.seq), 0),
    onEvent: (event) => {
      events.push(event);
      wake();
    },
    onStarted: (runId) => {
      started.push(runId);
      wake();
    },
    onError: (error) => {
      errors.push(error);
      wake();
    },
    onState: (state) => {
      states.push(state);
      wake();
    },
    onSessionEnded: () => {
      sessionEnded++;
      wake();
    },
    retryDelayMs: () => 0,
  });
  const until = (what: string, check: () => boolean) =>
    check()
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 60_000);
          waiters.push({
            check,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
  return { connection, events, states, errors, started, sessionEnded: () => sessionEnded, until };
}

describe("the editor's run channel against the studio", () => {
  let studio: E2EStudio;
  let gate: Gate;
  let token: string;
  let relay: Awaited<ReturnType<typeof startRelay>>;

  beforeAll(async () => {
    gate = await startGate();
    studio = await startE2EStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1" });
    token = await ownerToken(studio);
    relay = await startRelay(new URL(studio.url));
  });
  afterAll(async () => {
    gate.open();
    await relay?.close();
    await studio?.stop();
    await gate?.close();
  });

  it("follows a run again from its last event after the socket is cut, ending with each event once", async () => {
    const workflow = await createWorkflow<{ id: string }>(studio, token, gatedWorkflow(gate.url, "cut"));
    const { connection, events, states, started, until } = channel(relay.url, token);
    try {
      connection.send({ type: "start", workflow_id: workflow.id });
      await until("the run to start", () => started.length === 1);
      const runId = started[0] as string;
      await gate.arrived(1);
      await until("the node's start", () => events.some((e) => e.type === "node_started"));
      const before = relay.connections();

      relay.cut();
      await until("a new socket", () => relay.connections() > before && states.at(-1) === "open");
      expect(states).toContain("reconnecting");
      gate.release();
      await until("the run's end", () => events.some((e) => e.type === "run_finished"));

      const seqs = events.filter((e) => e.run_id === runId).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === "run_finished")).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: "run_finished", data: { status: "ok" } });
    } finally {
      connection.close();
    }
  });

  it("ends the session without retrying when the server refuses the token", async () => {
    const { connection, states, sessionEnded, until } = channel(relay.url, "not-a-token");
    const before = relay.connections();
    try {
      connection.send({ type: "follow", run_id: "none", after: 0 });
      await until("the session's end", () => sessionEnded() === 1);
      expect(states.at(-1)).toBe("closed");
      expect(states).not.toContain("reconnecting");
      expect(relay.connections()).toBe(before + 1);
    } finally {
      connection.close();
    }
  });

  it("does not open again by itself once closed, and opens for the next request", async () => {
    const { connection, states, errors, until } = channel(relay.url, token);
    try {
      connection.send({ type: "follow", run_id: "00000000-0000-0000-0000-000000000000", after: 0 });
      await until("the socket", () => states.at(-1) === "open");
      await until("the server's answer", () => errors.length === 1);
      const before = relay.connections();
      const closedAt = states.length;
      connection.close();
      relay.cut();
      // A new request opens a socket again: one, and no reconnection of the closed one.
      connection.send({ type: "follow", run_id: "00000000-0000-0000-0000-000000000000", after: 0 });
      await until("the second answer", () => errors.length === 2);
      expect(states.slice(closedAt)).toEqual(["closed", "connecting", "open"]);
      expect(relay.connections()).toBe(before + 1);
      expect(errors.map((e) => e.code)).toEqual(["RUN_NOT_FOUND", "RUN_NOT_FOUND"]);
    } finally {
      connection.close();
    }
  });
});
