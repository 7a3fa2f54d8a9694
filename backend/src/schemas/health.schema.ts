import { z } from "zod";

export const backgroundView = z.object({
  /** Failures of background work (run queue, sweeper, schedules, callbacks) since the server started. */
  failures: z.number().int(),
  last_failure_at: z.string().nullable(),
  last_failure_task: z.enum(["run", "queue", "bus", "sweeper", "schedules", "callbacks"]).nullable(),
  /** When the sweeper last went through the runs (null before its first pass). */
  last_sweep_at: z.string().nullable(),
});

export const healthView = z.object({
  /** `degraded`: Redis does not answer (runs wait, queued in the database, until it does). */
  status: z.enum(["ok", "degraded"]),
  version: z.string(),
  db: z.enum(["sqlite", "postgres"]),
  queue: z.enum(["memory", "redis"]),
  /** Whether Redis answers a PING; null without Redis (the embedded queue). */
  redis: z.enum(["ok", "unavailable"]).nullable(),
  /** Whether this process executes queued runs (STUDIO_RUN_JOBS). */
  executes_runs: z.boolean(),
  import_enabled: z.boolean(),
  background: backgroundView,
});
export type HealthView = z.infer<typeof healthView>;
