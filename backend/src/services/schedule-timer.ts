// What decides when schedules fire: this process polling the database every second (the
// embedded mode, DatabaseScheduleTimer), or BullMQ job schedulers on Redis (RedisScheduleTimer,
// any number of API and worker processes; loaded only with REDIS_URL). Either way the database
// claim (schedules.next_fire_at moved on only if it still holds the fire being claimed) decides
// which fire starts a run, so a fire handled twice starts one run.
import type { ScheduleRow } from "../models/database.model.js";

/** Fires every due schedule once (the embedded mode's poll). */
export type ScheduleTick = () => Promise<unknown>;
/** Fires one schedule for its fire at `at` (a job scheduler's job), if the database says it is due. */
export type ScheduleFire = (scheduleId: string, at: Date) => Promise<void>;

export interface ScheduleTimerHandlers {
  tick: ScheduleTick;
  fire: ScheduleFire;
  /** The enabled schedules in the database, which the job schedulers are made to match. */
  enabled(): Promise<ScheduleRow[]>;
}

export interface ScheduleTimer {
  readonly kind: "database" | "redis";
  /** Starts firing schedules from this process (`pollEveryMs`: how often the database timer polls). */
  start(handlers: ScheduleTimerHandlers, pollEveryMs?: number): void;
  /** A schedule was created or changed (enabled or not); resolves once the timer follows it. */
  saved(schedule: ScheduleRow): Promise<void>;
  /** A schedule was deleted (or found gone when it fired). */
  removed(scheduleId: string): Promise<void>;
  /** Stops firing; releases what the timer holds. */
  close(): Promise<void>;
}

/** The embedded mode: the database is polled every `everyMs` for due schedules. */
export class DatabaseScheduleTimer implements ScheduleTimer {
  readonly kind = "database";
  readonly #everyMs: number;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: { everyMs?: number; onError: (error: unknown) => void }) {
    this.#everyMs = options.everyMs ?? 1000;
    this.#onError = options.onError;
  }

  start(handlers: ScheduleTimerHandlers, pollEveryMs = this.#everyMs): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void handlers.tick().catch(this.#onError), pollEveryMs);
    this.#timer.unref();
  }

  // The next poll reads the row: nothing to tell.
  async saved(): Promise<void> {}
  async removed(): Promise<void> {}

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
