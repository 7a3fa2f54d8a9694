import type { Config } from "../core/config.js";
import { AppError } from "../core/errors.js";
import type { DatabaseKind } from "../repositories/database.js";
import type { HealthView } from "../schemas/health.schema.js";

export class HealthService {
  readonly #view: HealthView;
  readonly #ping: () => Promise<void>;

  constructor(deps: { config: Config; dbKind: DatabaseKind; version: string; ping: () => Promise<void> }) {
    this.#ping = deps.ping;
    this.#view = {
      status: "ok",
      version: deps.version,
      db: deps.dbKind,
      queue: deps.config.redisUrl ? "redis" : "memory",
      import_enabled: deps.config.enableImport,
    };
  }

  /** Answers only when the database answers, so a load balancer can trust it. */
  async health(): Promise<HealthView> {
    try {
      await this.#ping();
    } catch {
      throw new AppError("DATABASE_UNAVAILABLE", { db: this.#view.db });
    }
    return this.#view;
  }
}
