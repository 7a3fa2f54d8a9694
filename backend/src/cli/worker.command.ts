// `superstep worker`: a process that executes the runs queued on Redis (REDIS_URL), beside any
// number of API processes (`superstep start`) and other workers sharing the same database and
// Redis. It serves no API: only a liveness answer (worker-health.ts). It migrates the database like
// `start` does, and refuses a database that a newer version has migrated.
import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logging.js";
import { containerFor } from "./container-for.js";
import { CommandError, EXIT } from "./exit-codes.js";
import { applyHeapGrowth } from "./heap-growth.js";
import { startWorkerHealth } from "./worker-health.js";

export async function workerCommand(): Promise<number> {
  const loaded = loadConfig();
  if (!loaded.redisUrl) {
    throw new CommandError(
      EXIT.USAGE,
      "superstep worker takes its runs from the Redis queue: set REDIS_URL (and DATABASE_URL to the API's database)",
    );
  }
  // A worker is there to execute runs, whatever STUDIO_RUN_JOBS says for API processes.
  const config = { ...loaded, runJobs: true };
  applyHeapGrowth(config.heapGrowthPercent);
  const logger = createLogger(config.logLevel, config.logFormat);
  if (!config.databaseUrl) {
    logger.warn(
      { dataDir: config.dataDir },
      "DATABASE_URL is not set: this worker uses the embedded database in its data dir, which only a studio on this machine with the same data dir shares",
    );
  }
  const container = await containerFor(config, logger);
  let health: Awaited<ReturnType<typeof startWorkerHealth>>;
  try {
    health = await startWorkerHealth(container, config.host, config.workerHealthPort);
  } catch (error) {
    await container.close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new CommandError(
        EXIT.FAILED,
        `${config.host}:${config.workerHealthPort} is already in use; set STUDIO_WORKER_HEALTH_PORT to another port`,
      );
    }
    throw error;
  }
  const requeued = await container.runs.start();
  // Workers take schedules' fires too (BullMQ job schedulers: each fire is one job, whoever takes it).
  container.schedules.start();
  if (requeued > 0) logger.info({ runs: requeued }, "queued again the runs left unfinished by a stopped process");
  logger.info(
    { db: container.database.kind, concurrency: config.workerConcurrency },
    `Superstep worker is running; liveness on http://${config.host}:${health.port}/health`,
  );
  return new Promise<number>((resolve) => {
    const stop = async (signal: string) => {
      logger.info({ signal }, "shutting down");
      await new Promise<void>((done) => health.server.close(() => done()));
      await container.close();
      logger.info({ pending: process.getActiveResourcesInfo() }, "stopped");
      resolve(EXIT.OK);
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
  });
}
