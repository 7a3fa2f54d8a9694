// PostgreSQL out of reach (stopped, restarting after a crash, as when its write-ahead log's disk
// filled, or cut off by the network): a request that needs it is answered 503
// DATABASE_UNAVAILABLE with Retry-After, never a 500, and requests succeed again once it is back.
// The studio reaches the database through a loopback relay the test can cut and restore.
import { connect, createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { until } from "../../test/studio-api.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("pgAdminUrl") });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A TCP relay to the database: `cut` drops every connection and refuses new ones until `restore`. */
async function startRelay(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      const relay = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      server = relay;
      relay.listen(port, "127.0.0.1", () => {
        port = (relay.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server?.close(() => resolve());
      server = null;
    });
  return { port: () => port, cut, restore: () => (server ? Promise.resolve() : listen()) };
}

describe.runIf(inject("dbKind") === "postgres")("PostgreSQL out of reach", () => {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let studio: TestStudio;
  let owner: Session;
  const database = `superstep_away_${Math.random().toString(16).slice(2, 10)}`;

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    const target = new URL(inject("pgAdminUrl"));
    relay = await startRelay(target);
    const url = new URL(target);
    url.port = String(relay.port());
    url.pathname = `/${database}`;
    studio = await startTestStudio({ DATABASE_URL: url.toString() });
    owner = await setupOwner(studio);
  });
  afterAll(async () => {
    await relay.restore();
    await studio.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it("answers 503 DATABASE_UNAVAILABLE with Retry-After while it is away, and serves again once it is back", async () => {
    const list = () => studio.app.inject({ method: "GET", url: "/api/workflows", headers: owner.auth });
    expect((await list()).statusCode).toBe(200);

    await relay.cut();
    for (let attempt = 0; attempt < 3; attempt++) {
      const away = await list();
      expect(away.statusCode).toBe(503);
      expect(away.json().error).toMatchObject({ code: "DATABASE_UNAVAILABLE", details: { retry_after_seconds: 10 } });
      expect(away.headers["retry-after"]).toBe("10");
    }

    await relay.restore();
    const back = await until("a request to succeed again", async () => {
      const response = await list();
      return response.statusCode === 200 ? response : undefined;
    });
    expect(back.json().data).toEqual([]);
  });
});
