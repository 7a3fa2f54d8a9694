import type { Config } from "../core/config.js";
import { AppError } from "../core/errors.js";
import type { DatabaseKind } from "../repositories/database.js";
import type { HealthView } from "../schemas/health.schema.js";
import type { BackgroundView } from "./background-monitor.js";

export class HealthService {
  readonly #view: Omit<HealthView, "status" | "redis" | "background">;
  readonly #ping: () => Promise<void>;
  readonly #redisPing: (() => Promise<void>) | null;
  readonly #background: () => BackgroundView;

  constructor(deps: {
    config: Config;
    dbKind: DatabaseKind;
    version: string;
    ping: () => Promise<void>;
    /** Redis's PING, in the Redis mode; null in the embedded one. */
    redisPing?: (() => Promise<void>) | null;
    /** Whether this process executes queued runs. */
    executesRuns?: boolean;
    background: () => BackgroundView;
  }) {
    this.#ping = deps.ping;
    this.#redisPing = deps.redisPing ?? null;
    this.#background = deps.background;
    this.#view = {
      version: deps.version,
      db: deps.dbKind,
      queue: this.#redisPing ? "redis" : "memory",
      executes_runs: deps.executesRuns ?? true,
      import_enabled: deps.config.enableImport,
    };
  }

  /**
   * Answers only when the database answers, so a load balancer can trust it. Redis away is
   * `degraded`, not an error: requests are served and runs wait, queued in the database, until it
   * answers again.
   */
  async health(): Promise<HealthView> {
    const redis = this.#redisPing
      ? this.#redisPing().then(
          () => "ok" as const,
          () => "unavailable" as const,
        )
      : Promise.resolve(null);
    try {
      await this.#ping();
    } catch {
      throw new AppError("DATABASE_UNAVAILABLE", { db: this.#view.db });
    }
    const redisState = await redis;
    return {
      status: redisState === "unavailable" ? "degraded" : "ok",
      ...this.#view,
      redis: redisState,
      background: this.#background(),
    };
  }
}
