import { buildApp } from "../api/app.js";
import { loadConfig } from "../core/config.js";
import { createLogger } from "../core/logging.js";
import { containerFor } from "./container-for.js";
import { EXIT } from "./exit-codes.js";
import { applyHeapGrowth } from "./heap-growth.js";

export async function startCommand(): Promise<number> {
  const config = loadConfig();
  applyHeapGrowth(config.heapGrowthPercent);
  const logger = createLogger(config.logLevel, config.logFormat);
  const container = await containerFor(config, logger);
  const app = await buildApp(container);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await container.close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      console.error(
        `superstep: ${config.host}:${config.port} is already in use; stop the other server or set STUDIO_PORT.`,
      );
      return EXIT.FAILED;
    }
    throw error;
  }
  const pause = config.engine.testPauseAt;
  if (pause)
    logger.warn(
      { point: pause.point, nodeId: pause.nodeId },
      "STUDIO_TEST_PAUSE_AT is set (a testing aid): runs stop for good at that point",
    );
  if (config.imports.testGitMirror)
    logger.warn(
      "STUDIO_TEST_IMPORT_GIT_MIRROR is set (a testing aid): GitHub URLs are cloned from bare repositories on this machine",
    );
  const requeued = await container.runs.start();
  container.schedules.start();
  if (requeued > 0) logger.info({ runs: requeued }, "continuing runs left unfinished by the last stop");
  const shown = config.host === "0.0.0.0" || config.host === "127.0.0.1" ? "localhost" : config.host;
  const port = (app.server.address() as { port: number } | null)?.port ?? config.port;
  logger.info(
    { db: container.database.kind, dataDir: config.dataDir },
    `Superstep is running on http://${shown}:${port}`,
  );

  return new Promise<number>((resolve) => {
    const stop = async (signal: string) => {
      logger.info({ signal }, "shutting down");
      await app.close();
      await container.close();
      // What could still keep the process from exiting (a timer or connection left behind).
      logger.info({ pending: process.getActiveResourcesInfo() }, "stopped");
      resolve(EXIT.OK);
    };
    process.once("SIGINT", () => void stop("SIGINT"));
    process.once("SIGTERM", () => void stop("SIGTERM"));
  });
}
