// The throwaway Redis server the Redis tests start: real, on loopback, with the settings the
// studio wants (AOF on, noeviction), and keeping what it acknowledged across a kill.
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RedisServer, startRedisServer } from "./redis-server.js";

describe("the test Redis server", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server?.stop());

  it("answers on loopback with AOF on and the noeviction policy", async () => {
    expect(server.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      expect(await client.ping()).toBe("PONG");
      expect(await client.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
      expect(await client.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "noeviction"]);
    } finally {
      client.disconnect();
    }
  });

  it("keeps an acknowledged write across a kill and a restart (the append-only file)", async () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    await client.connect();
    await client.set("kept", "yes");
    client.disconnect();
    await server.restart();
    const again = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      expect(await again.get("kept")).toBe("yes");
    } finally {
      again.disconnect();
    }
  });
});

describe("the test Redis server's port", () => {
  it("starts on another port when the one it picked was taken meanwhile", async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
    const taken = (squatter.address() as { port: number }).port;
    const picked: number[] = [];
    let server: RedisServer | undefined;
    try {
      server = await startRedisServer({
        pickPort: async () => {
          const port = picked.length === 0 ? taken : await freePort();
          picked.push(port);
          return port;
        },
      });
      expect(picked[0]).toBe(taken);
      expect(picked).toHaveLength(2);
      expect(server.port).toBe(picked[1]);
      expect(server.output()).toMatch(/address already in use/i);
      const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
      try {
        expect(await client.ping()).toBe("PONG");
      } finally {
        client.disconnect();
      }
    } finally {
      await server?.stop();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it("fails at once, saying why, when redis-server exits for another reason", async () => {
    let picks = 0;
    const pickPort = () => {
      picks++;
      return freePort();
    };
    await expect(startRedisServer({ extraArgs: ["--no-such-setting", "1"], pickPort })).rejects.toThrow(
      /redis-server exited before it was ready/,
    );
    expect(picks).toBe(1);
  });
});
