// Waiting for a Redis connection's first "ready", at most a few seconds: a process just started
// adds jobs or schedulers on a connection without an offline queue, which would refuse at once.
import type { Redis } from "ioredis";

/** How long a just-started process waits for Redis's first connection before refusing. */
export const REDIS_CONNECT_WAIT_MS = 5000;

/** Resolves on the connection's next "ready"; rejects after `waitMs`. */
export function redisReady(client: Redis, waitMs = REDIS_CONNECT_WAIT_MS): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      reject(new Error(`Redis did not answer within ${waitMs} ms`));
    }, waitMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once("ready", onReady);
  });
}
