import type { Config } from "../core/config.js";
import { AppError } from "../core/errors.js";
import type { DatabaseKind } from "../repositories/database.js";
import type { HealthView } from "../schemas/health.schema.js";
import type { BackgroundView } from "./background-monitor.js";

export class HealthService {
  readonly #view: Omit<HealthView, "background">;
  readonly #ping: () => Promise<void>;
  readonly #background: () => BackgroundView;

  constructor(deps: {
    config: Config;
    dbKind: DatabaseKind;
    version: string;
    ping: () => Promise<void>;
    background: () => BackgroundView;
  }) {
    this.#ping = deps.ping;
    this.#background = deps.background;
    this.#view = {
      status: "ok",
      version: deps.version,
      db: deps.dbKind,
      // The Redis queue is not built yet: every run goes through the embedded queue.
      queue: "memory",
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
    return { ...this.#view, background: this.#background() };
  }
}
