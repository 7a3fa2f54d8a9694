// Wires the process together: configuration → database → repositories → services. Routes reach
// services only through this container.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Config } from "../core/config.js";
import { egressClientFor } from "../core/egress/egress-client.js";
import type { Logger } from "../core/logging.js";
import { resolveJwtSecret, TokenSigner } from "../core/security.js";
import { ApiKeyRepository } from "../repositories/api-key.repository.js";
import { CallbackOutboxRepository } from "../repositories/callback-outbox.repository.js";
import {
  type DatabaseHandle,
  migrateToLatest,
  type OpenOptions,
  openDatabase,
  pingDatabase,
} from "../repositories/database.js";
import { ImportJobRepository } from "../repositories/import-job.repository.js";
import { NodeResultRepository } from "../repositories/node-result.repository.js";
import { RunRepository } from "../repositories/run.repository.js";
import { RunHistoryRepository } from "../repositories/run-history.repository.js";
import { RunStatsRepository } from "../repositories/run-stats.repository.js";
import { ScheduleRepository } from "../repositories/schedule.repository.js";
import { UserRepository } from "../repositories/user.repository.js";
import { ApiKeyService } from "../services/api-key.service.js";
import { AuthService } from "../services/auth.service.js";
import { BackgroundMonitor } from "../services/background-monitor.js";
import type { CredentialService } from "../services/credential.service.js";
import { HealthService } from "../services/health.service.js";
import { ImportService } from "../services/import/import.service.js";
import { CallbackDeliverer } from "../services/runs/callback-deliverer.js";
import { EmbeddedQueue } from "../services/runs/embedded-queue.js";
import { NodeRunService } from "../services/runs/node-run.service.js";
import { NodeStatsService } from "../services/runs/node-stats.service.js";
import { RunService } from "../services/runs/run.service.js";
import { RunAdmission } from "../services/runs/run-admission.js";
import { MemoryRunBus, type RunBus } from "../services/runs/run-bus.js";
import { RunCompareService } from "../services/runs/run-compare.service.js";
import { wireRunExecutor, wireWorkflowAccess } from "../services/runs/run-execution.wiring.js";
import { RunForkService } from "../services/runs/run-fork.service.js";
import type { RunQueue } from "../services/runs/run-queue.js";
import { RunThread } from "../services/runs/run-thread.js";
import { RunThreadPool } from "../services/runs/run-thread-pool.js";
import type { RunWorker } from "../services/runs/run-worker.js";
import { TriggerRateLimiter } from "../services/runs/trigger-rate.js";
import { ScheduleService } from "../services/schedule.service.js";
import { DatabaseScheduleTimer, type ScheduleTimer } from "../services/schedule-timer.js";
import type { WorkflowService } from "../services/workflow.service.js";

export interface Container {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  auth: AuthService;
  apiKeys: ApiKeyService;
  workflows: WorkflowService;
  credentials: CredentialService;
  runs: RunService;
  /** A run's supersteps, and forks from them. */
  runForks: RunForkService;
  /** One node run alone on a chosen state. */
  nodeRuns: NodeRunService;
  /** Per-node figures over a workflow's newest runs. */
  nodeStats: NodeStatsService;
  /** Two runs of a workflow side by side. */
  runCompare: RunCompareService;
  schedules: ScheduleService;
  bus: RunBus;
  /** Where runs are queued: in this process, or BullMQ on Redis (REDIS_URL). */
  queue: RunQueue;
  /** Where queued runs execute (run threads, or this thread). */
  runWorker: RunWorker;
  callbacks: CallbackDeliverer;
  background: BackgroundMonitor;
  health: HealthService;
  /** Repo import jobs (STUDIO_ENABLE_IMPORT); their routes exist only when import is on. */
  imports: ImportService;
  close(): Promise<void>;
}

export const PRODUCT_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** `database`: how the database is opened (only tests change it: a disk whose flushes fail). */
export async function buildContainer(
  config: Config,
  logger: Logger,
  options: { database?: OpenOptions } = {},
): Promise<Container> {
  const database = openDatabase(
    config,
    (error) => logger.warn({ err: error }, "idle database connection lost"),
    // Runs on threads of their own leave this thread's event loop free: its syncs go to the pool.
    { syncOnThisThread: config.runThreads === 0, ...options.database },
  );
  try {
    const { applied } = await migrateToLatest(database.db, database.kind);
    if (applied.length > 0) logger.info({ applied, db: database.kind }, "database migrated");
  } catch (error) {
    await database.close();
    throw error;
  }
  if (!config.jwtSecret && database.kind === "postgres") {
    logger.warn(
      "JWT_SECRET is not set: using a secret kept in the data dir; set it when several servers share the database",
    );
  }
  if (!config.encryptionKey && database.kind === "postgres") {
    logger.warn(
      "STUDIO_ENCRYPTION_KEY is not set: credentials are encrypted with a key kept in the data dir; set it when several servers share the database",
    );
  }
  const tokens = new TokenSigner(resolveJwtSecret(config.jwtSecret, config.dataDir), config.jwtTtlSeconds);
  const users = new UserRepository(database.db);
  const apiKeyRepository = new ApiKeyRepository(database.db);
  const access = wireWorkflowAccess(config, database.db);
  const { workflowRepository, workflows, credentials } = access;
  const runRepository = new RunRepository(database.db, {
    settled: () => database.settled(),
    writes: database.writes,
  });
  // Run execution's own connections (a separate pool on PostgreSQL: see DatabaseHandle.forRuns).
  const runWork = database.forRuns;
  const runWorkRepository =
    runWork.db === database.db
      ? runRepository
      : new RunRepository(runWork.db, { settled: () => database.settled(), writes: runWork.writes });
  const background = new BackgroundMonitor(logger);
  const { queue, bus, redisPing, scheduleTimer } = await openQueueAndBus(config, logger, background);
  // Names this process in the leases and claims it takes.
  const processId = randomUUID();
  const base = config.callbackRetryBaseMs;
  const egress = egressClientFor(config.engine.egressAllow);
  const callbacks = new CallbackDeliverer({
    runs: runWorkRepository,
    apiKeys: apiKeyRepository,
    outbox: new CallbackOutboxRepository(runWork.db),
    egress,
    backoffMs: [base, base * 5, base * 30, base * 120],
    logger,
    monitor: background,
    owner: processId,
  });
  // Where queued runs execute: threads of their own, or (the CLI's one run, tests that reach into
  // the process) this thread.
  const onEnded = () => callbacks.kick();
  const executor: RunWorker =
    config.runThreads > 0
      ? new RunThreadPool(
          Array.from({ length: config.runThreads }, () => new RunThread({ config, bus, monitor: background, onEnded })),
        )
      : wireRunExecutor({
          config,
          logger,
          database,
          runs: runWorkRepository,
          access,
          bus,
          monitor: background,
          onEnded,
        });
  // Every start draws on one allowance per user: runs from any trigger and one-node runs alike.
  const runRate = new TriggerRateLimiter(config.userRunRatePerMinute);
  const admission = new RunAdmission({
    runs: runRepository,
    maxQueued: config.userMaxQueued,
    rate: runRate,
    server: {
      maxQueued: config.maxQueuedRuns,
      current: () => {
        const { pending, active } = queue.size();
        return pending + active;
      },
    },
  });
  const runs = new RunService({
    runs: runRepository,
    workflows: workflowRepository,
    workflowService: workflows,
    queue,
    executesRuns: config.runJobs,
    admission,
    executor,
    engine: config.engine,
    bus,
    egress,
    callbacks,
    monitor: background,
    leaseTtlMs: config.runLeaseTtlMs,
  });
  const history = new RunHistoryRepository(database.db);
  const nodeRuns = new NodeRunService({
    rate: runRate,
    maxRunning: config.userMaxRuns,
    runs: runRepository,
    history,
    workflows: workflowRepository,
    workflowService: workflows,
    engine: config.engine,
    credentialsFor: (ownerId) => credentials.resolverFor(ownerId),
  });
  const runForks = new RunForkService({
    runs: runRepository,
    history,
    nodeResults: new NodeResultRepository(database.db, () => database.settled()),
    workflowService: workflows,
    engine: config.engine,
    admission,
    queueTurn: (run) => runs.queueTurn(run),
  });
  const runStats = new RunStatsRepository(database.db);
  const schedules = new ScheduleService({
    schedules: new ScheduleRepository(database.db),
    workflows: workflowRepository,
    runs,
    logger,
    monitor: background,
    minIntervalSeconds: config.scheduleMinIntervalSeconds,
    timer: scheduleTimer,
  });
  const imports = new ImportService({
    config: config.imports,
    // The sandbox's modules load with the first import, not at start.
    sandbox: async (imports) =>
      (await import("../engine/sandbox/container/import-sandbox-factory.js")).createImportSandbox(imports),
    workflows,
    jobs: new ImportJobRepository(config.imports.dir),
    logger,
  });
  if (config.enableImport) await imports.recover();
  return {
    config,
    logger,
    database,
    imports,
    auth: new AuthService({ users, apiKeys: apiKeyRepository, tokens, allowSignup: config.allowSignup }),
    apiKeys: new ApiKeyService({ apiKeys: apiKeyRepository }),
    workflows,
    credentials,
    runs,
    runForks,
    nodeRuns,
    nodeStats: new NodeStatsService({ stats: runStats, workflows: workflowRepository }),
    runCompare: new RunCompareService({ runs: runRepository, stats: runStats }),
    schedules,
    bus,
    queue,
    runWorker: executor,
    callbacks,
    background,
    health: new HealthService({
      config,
      dbKind: database.kind,
      version: PRODUCT_VERSION,
      ping: () => pingDatabase(database.db),
      redisPing,
      executesRuns: config.runJobs,
      background: () => background.view(),
    }),
    close: async () => {
      await schedules.close();
      await imports.close();
      // Give running work a moment to finish; the timer must not keep the process alive. Pending
      // callbacks wait in the outbox for the next start; runs still running are taken over once
      // their lease expires.
      await Promise.race([
        Promise.all([runs.stop(), queue.idle()]),
        new Promise((resolve) => setTimeout(resolve, 5000).unref()),
      ]);
      // The run threads, their connections and the sandbox children kept ready for Code nodes.
      await executor.close();
      await queue.close();
      await bus.close();
      await database.close();
    },
  };
}

/**
 * The queue, the run bus and the schedules' timer: in this process, or (REDIS_URL) BullMQ, pub/sub
 * and BullMQ job schedulers on Redis, loaded
 * only then. Redis that does not answer at start is logged, not fatal: runs wait, queued in the
 * database, and the sweeper hands them to the queue once it answers (/api/health says so meanwhile).
 */
async function openQueueAndBus(
  config: Config,
  logger: Logger,
  background: BackgroundMonitor,
): Promise<{
  queue: RunQueue;
  bus: RunBus;
  redisPing: (() => Promise<void>) | null;
  scheduleTimer: ScheduleTimer;
}> {
  if (!config.redisUrl) {
    return {
      queue: new EmbeddedQueue({
        concurrency: config.workerConcurrency,
        perUser: config.userMaxRuns,
        onFailure: (runId, error) => background.failed("queue", "queued run failed", error, { runId }),
      }),
      bus: new MemoryRunBus(),
      redisPing: null,
      scheduleTimer: new DatabaseScheduleTimer({
        onError: (error) => background.failed("schedules", "scheduler tick failed: the database did not answer", error),
      }),
    };
  }
  const { openRedisMode, shownRedisUrl } = await import("../services/runs/redis-mode.js");
  const redis = await openRedisMode({
    url: config.redisUrl,
    concurrency: config.workerConcurrency,
    perUser: config.userMaxRuns,
    // BullMQ's hold on a job is as long as the run's lease: a job whose worker died goes back to
    // the queue about when its run's lease has expired and another worker may take the run.
    lockMs: config.runLeaseTtlMs,
    logger,
    monitor: background,
  });
  const warnings = await redis.check();
  for (const warning of warnings) logger.warn({ redis: shownRedisUrl(config.redisUrl) }, warning);
  logger.info(
    { redis: shownRedisUrl(config.redisUrl), runsJobs: config.runJobs },
    config.runJobs
      ? "queue on Redis: this process executes queued runs"
      : "queue on Redis: this process queues runs; worker processes (superstep worker) execute them",
  );
  return { queue: redis.queue, bus: redis.bus, redisPing: redis.ping, scheduleTimer: redis.schedules };
}
