// Everything of the Redis mode (REDIS_URL set) in one place, loaded only then: the BullMQ run
// queue, the pub/sub run bus, the schedules' job schedulers, a ping for /api/health, and the check of the server's settings.
import type { Redis } from "ioredis";
import type { Logger } from "../../core/logging.js";
import type { BackgroundMonitor } from "../background-monitor.js";
import { RedisScheduleTimer } from "../redis-schedule-timer.js";
import { RedisRunBus } from "./redis-run-bus.js";
import { RedisRunQueue } from "./redis-run-queue.js";

// A ping that gets no answer in this long counts as "Redis does not answer".
const PING_TIMEOUT_MS = 2000;

export interface RedisMode {
  queue: RedisRunQueue;
  bus: RedisRunBus;
  /** The schedules' timer: one BullMQ job scheduler per enabled schedule (closed by the schedule service). */
  schedules: RedisScheduleTimer;
  /** Resolves when Redis answers a PING; rejects otherwise (not connected, or no answer in time). */
  ping(): Promise<void>;
  /** Warnings about the server's settings, or about it not answering (logged at start). */
  check(): Promise<string[]>;
  close(): Promise<void>;
}

/** The Redis URL without its password, for logs. */
export function shownRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(unreadable REDIS_URL)";
  }
}

export async function openRedisMode(options: {
  url: string;
  concurrency: number;
  perUser: number;
  lockMs: number;
  logger: Logger;
  monitor: BackgroundMonitor;
}): Promise<RedisMode> {
  const [{ Redis }, bullmq] = await Promise.all([import("ioredis"), import("bullmq")]);
  const { url, logger, monitor } = options;
  const shown = shownRedisUrl(url);
  // Connection trouble is logged once per kind of message until Redis answers again, not on every
  // reconnect attempt.
  const reported = new Set<string>();
  const onError = (message: string, error: unknown) => {
    if (reported.has(message)) return;
    reported.add(message);
    logger.warn({ err: error, redis: shown }, message);
  };
  const watch = (client: Redis, what: string) => {
    client.on("error", (error: Error) => onError(`${what}: Redis does not answer`, error));
    client.on("ready", () => {
      if (reported.size > 0) logger.info({ redis: shown }, "Redis answers again");
      reported.clear();
    });
    return client;
  };
  // Publishing and pings fail at once while Redis is away (nothing piles up in memory); the
  // subscription waits for it and subscribes again when it is back.
  const publisher = watch(new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }), "run bus");
  const subscriber = watch(new Redis(url, { maxRetriesPerRequest: null }), "run bus subscription");
  const bus = new RedisRunBus({
    publisher,
    subscriber,
    onError: (message, error, runId) => monitor.failed("bus", message, error, { runId }),
  });
  const queue = new RedisRunQueue(bullmq, {
    url,
    connection: watch(new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }), "run queue"),
    concurrency: options.concurrency,
    perUser: options.perUser,
    lockMs: options.lockMs,
    onFailure: (runId, error) => monitor.failed("queue", "queued run failed", error, { runId }),
    onError,
    onLockLost: (runId, error) =>
      logger.warn(
        { err: error, runId, redis: shown },
        "run worker: this process lost its hold on a run's job (it stopped answering past the lock); the run's lease decides who goes on with it",
      ),
    onStalled: (runId) =>
      logger.info(
        { runId, redis: shown },
        "run job stalled (its worker stopped answering): handed out again; the run's lease decides whether it runs",
      ),
  });
  const schedules = new RedisScheduleTimer(bullmq, {
    url,
    connection: watch(new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }), "schedules"),
    onError: (message, error) => monitor.failed("schedules", message, error),
  });
  const ping = async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        publisher.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer in ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    queue,
    bus,
    schedules,
    ping,
    check: async () => {
      try {
        await ping();
      } catch {
        // The first connection may still be under way: wait for it (bounded) before saying so.
        const connected = await waitReady(publisher, PING_TIMEOUT_MS * 2);
        if (!connected) {
          return [
            `Redis does not answer at ${shown}: runs are kept queued in the database and handed to the workers once it answers`,
          ];
        }
      }
      return checkRedisSettings(publisher);
    },
    close: async () => {
      queue.stop();
      await queue.close();
      await bus.close();
    },
  };
}

function waitReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once("ready", onReady);
  });
}

/**
 * Runs and their jobs must survive a Redis restart and never be evicted: the append-only file on,
 * and `maxmemory-policy noeviction`. Warnings when they are not, or cannot be read (CONFIG may be
 * disabled on a managed server).
 */
export async function checkRedisSettings(client: Pick<Redis, "config">): Promise<string[]> {
  const read = async (name: string): Promise<string | null> => {
    const answer = (await client.config("GET", name)) as string[];
    return answer[1] ?? null;
  };
  try {
    const warnings: string[] = [];
    const appendonly = await read("appendonly");
    if (appendonly !== "yes") {
      warnings.push(
        `Redis has appendonly=${appendonly ?? "(unknown)"}: queued jobs are lost when Redis restarts (they are queued again from the database, later); set appendonly yes`,
      );
    }
    const policy = await read("maxmemory-policy");
    if (policy !== "noeviction") {
      warnings.push(
        `Redis has maxmemory-policy=${policy ?? "(unknown)"}: under memory pressure it may evict queued jobs; set maxmemory-policy noeviction`,
      );
    }
    return warnings;
  } catch (error) {
    return [
      `Redis settings could not be read (CONFIG GET: ${error instanceof Error ? error.message : String(error)}); make sure appendonly is yes and maxmemory-policy is noeviction`,
    ];
  }
}
