// The Redis settings the studio checks at start, on a real Redis server the test starts: none to
// warn about with AOF on and noeviction; a warning for each that is not.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../test/redis-server.js";
import { checkRedisSettings, shownRedisUrl } from "./redis-mode.js";

describe("Redis settings check", () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
  });
  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });

  it("warns about nothing with appendonly yes and maxmemory-policy noeviction", async () => {
    expect(await checkRedisSettings(client)).toEqual([]);
  });

  it("warns when AOF is off and when keys may be evicted", async () => {
    await client.config("SET", "appendonly", "no");
    await client.config("SET", "maxmemory-policy", "allkeys-lru");
    try {
      const warnings = await checkRedisSettings(client);
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatch(/^Redis has appendonly=no: .*set appendonly yes$/);
      expect(warnings[1]).toMatch(/^Redis has maxmemory-policy=allkeys-lru: .*set maxmemory-policy noeviction$/);
    } finally {
      await client.config("SET", "appendonly", "yes");
      await client.config("SET", "maxmemory-policy", "noeviction");
    }
  });

  it("warns when the settings cannot be read (CONFIG disabled, as on managed servers)", async () => {
    const managed = await startRedisServer({ extraArgs: ["--rename-command", "CONFIG", ""] });
    const refusing = new Redis(managed.url);
    try {
      const warnings = await checkRedisSettings(refusing);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^Redis settings could not be read \(CONFIG GET: ERR unknown command 'config'.*\); make sure appendonly is yes and maxmemory-policy is noeviction$/,
      );
    } finally {
      refusing.disconnect();
      await managed.stop();
    }
  });

  it("shows a Redis URL without its password", () => {
    expect(shownRedisUrl("redis://:s3cret@127.0.0.1:6380/2")).toBe("redis://127.0.0.1:6380/2");
    expect(shownRedisUrl("rediss://user:s3cret@redis.internal:6379")).toBe("rediss://redis.internal:6379");
  });
});
