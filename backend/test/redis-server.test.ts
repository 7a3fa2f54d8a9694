// The throwaway Redis server the Redis tests start: real, on loopback, with the settings the
// studio wants (AOF on, noeviction), and keeping what it acknowledged across a kill.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "./redis-server.js";

describe("the test Redis server", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server.stop());

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
