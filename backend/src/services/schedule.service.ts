// Schedules: cron expressions (with seconds optional) in a time zone, each fire one run. A fire
// missed while the server was down runs once when it comes back, never once per missed time. No
// schedule fires more often than STUDIO_SCHEDULE_MIN_INTERVAL: a cron that would is refused when
// saved, and the scheduler itself spaces the fires of any schedule that slips through.
//
// When a schedule fires is up to its timer (schedule-timer.ts): the database polled every second
// here, or BullMQ job schedulers on Redis. Either way a fire is claimed in the database first
// (claimFire), and only the claim's winner starts the run.
import { CronExpressionParser } from "cron-parser";
import { type Actor, assertOwned } from "../core/authz.js";
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/logging.js";
import type { ScheduleRow } from "../models/database.model.js";
import type { ScheduleRepository } from "../repositories/schedule.repository.js";
import type { WorkflowRepository } from "../repositories/workflow.repository.js";
import type { BackgroundMonitor } from "./background-monitor.js";
import type { RunService } from "./runs/run.service.js";
import type { ScheduleTimer } from "./schedule-timer.js";

export interface ScheduleBody {
  cron: string;
  timezone?: string;
  input?: Record<string, unknown>;
  enabled?: boolean;
}

export function toScheduleView(row: ScheduleRow) {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    cron: row.cron,
    timezone: row.timezone,
    input: JSON.parse(row.input) as Record<string, unknown>,
    enabled: row.enabled === 1,
    next_fire_at: row.next_fire_at,
    last_fire_at: row.last_fire_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
export type ScheduleView = ReturnType<typeof toScheduleView>;

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
  } catch {
    throw new AppError("SCHEDULE_TIMEZONE_INVALID", { timezone });
  }
}

/** The first fire strictly after `after`, or AppError SCHEDULE_CRON_INVALID. */
export function nextFire(cron: string, timezone: string, after: Date): string {
  try {
    return CronExpressionParser.parse(cron, { currentDate: after, tz: timezone }).next().toDate().toISOString();
  } catch (error) {
    throw new AppError("SCHEDULE_CRON_INVALID", {
      cron,
      reason: error instanceof Error ? error.message : String(error),
    });
  }
}

// A new cron is checked over its next fire times: this many, and none further than the horizon
// (cron patterns repeat within a year; a sparse cron such as 29 February stays cheap to check).
const INTERVAL_SAMPLE = 100;
const INTERVAL_HORIZON_MS = 2 * 366 * 24 * 3600 * 1000;

/**
 * AppError SCHEDULE_INTERVAL_TOO_SHORT, naming the shortest gap, when two of the cron's next fire
 * times (after `from`) are closer than `minSeconds`; the cron must already parse.
 */
export function checkInterval(cron: string, timezone: string, minSeconds: number, from: Date): void {
  const fires = CronExpressionParser.parse(cron, { currentDate: from, tz: timezone });
  const horizon = from.getTime() + INTERVAL_HORIZON_MS;
  let previous: number | null = null;
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < INTERVAL_SAMPLE && fires.hasNext(); i++) {
    const at = fires.next().toDate().getTime();
    if (previous !== null) shortest = Math.min(shortest, at - previous);
    if (at > horizon) break;
    previous = at;
  }
  if (shortest < minSeconds * 1000) {
    throw new AppError("SCHEDULE_INTERVAL_TOO_SHORT", {
      cron,
      min_interval_seconds: minSeconds,
      interval_seconds: shortest / 1000,
    });
  }
}

/** How many fire times a preview shows. */
export const PREVIEW_FIRES = 5;

export class ScheduleService {
  readonly #schedules: ScheduleRepository;
  readonly #workflows: WorkflowRepository;
  readonly #runs: RunService;
  readonly #logger: Logger;
  readonly #monitor: BackgroundMonitor;
  readonly #minIntervalMs: number;
  readonly #timer: ScheduleTimer;

  constructor(deps: {
    schedules: ScheduleRepository;
    workflows: WorkflowRepository;
    runs: RunService;
    logger: Logger;
    monitor: BackgroundMonitor;
    minIntervalSeconds: number;
    timer: ScheduleTimer;
  }) {
    this.#timer = deps.timer;
    this.#monitor = deps.monitor;
    this.#schedules = deps.schedules;
    this.#workflows = deps.workflows;
    this.#runs = deps.runs;
    this.#logger = deps.logger;
    this.#minIntervalMs = deps.minIntervalSeconds * 1000;
  }

  async list(actor: Actor, workflowId: string): Promise<ScheduleView[]> {
    await this.#workflow(actor, workflowId);
    return (await this.#schedules.listByWorkflow(workflowId)).map(toScheduleView);
  }

  async create(actor: Actor, workflowId: string, body: ScheduleBody): Promise<ScheduleView> {
    await this.#workflow(actor, workflowId);
    const created = await this.#schedules.create(workflowId, actor.userId, this.#fields(body));
    await this.#follow(created.id, () => this.#timer.saved(created));
    return toScheduleView(created);
  }

  async update(actor: Actor, workflowId: string, id: string, body: ScheduleBody): Promise<ScheduleView> {
    await this.#owned(actor, workflowId, id);
    const updated = await this.#schedules.update(id, this.#fields(body));
    if (!updated) throw new AppError("SCHEDULE_NOT_FOUND");
    await this.#follow(id, () => this.#timer.saved(updated));
    return toScheduleView(updated);
  }

  async delete(actor: Actor, workflowId: string, id: string): Promise<void> {
    await this.#owned(actor, workflowId, id);
    await this.#schedules.delete(id);
    await this.#follow(id, () => this.#timer.removed(id));
  }

  /**
   * The next fire times of a cron in a time zone, for the editor's cron field, checked as a saved
   * schedule is (time zone, cron, minimum interval): what the preview shows is what saving gives.
   */
  preview(cron: string, timezone = "UTC", now = new Date()): { cron: string; timezone: string; next: string[] } {
    this.#fields({ cron, timezone }, now);
    const fires = CronExpressionParser.parse(cron, { currentDate: now, tz: timezone });
    const next: string[] = [];
    while (next.length < PREVIEW_FIRES && fires.hasNext()) next.push(fires.next().toDate().toISOString());
    return { cron, timezone, next };
  }

  /** Fires every due schedule once; returns how many runs were started. */
  async tick(now = new Date()): Promise<number> {
    let fired = 0;
    for (const schedule of await this.#schedules.findDue(now.toISOString(), 100)) {
      if (await this.#fire(schedule, now)) fired++;
    }
    return fired;
  }

  /**
   * Fires one schedule for its fire at `at` (a job scheduler's job on Redis), if the database says
   * it is due by then: a fire already claimed, or one the minimum interval or a changed cron has
   * moved on, starts nothing. Resolves true when a run was started.
   */
  async fireOne(scheduleId: string, at: Date): Promise<boolean> {
    const schedule = await this.#schedules.findById(scheduleId);
    if (!schedule) {
      // Deleted while its job scheduler stayed behind (Redis away then): removed now.
      await this.#follow(scheduleId, () => this.#timer.removed(scheduleId));
      return false;
    }
    const now = new Date(Math.max(Date.now(), at.getTime()));
    if (schedule.enabled !== 1 || !schedule.next_fire_at || Date.parse(schedule.next_fire_at) > now.getTime()) {
      return false;
    }
    return this.#fire(schedule, now);
  }

  /** Claims the schedule's due fire and starts its run; false when another process claimed it first. */
  async #fire(schedule: ScheduleRow, now: Date): Promise<boolean> {
    const dueAt = schedule.next_fire_at as string;
    // The next fire is computed from now, not from the missed time: a long outage fires once.
    // It is never sooner than the minimum interval after this one, whatever the cron says.
    const earliest = Date.parse(dueAt) + this.#minIntervalMs - 1;
    const next = nextFire(schedule.cron, schedule.timezone, new Date(Math.max(now.getTime(), earliest)));
    if (!(await this.#schedules.claimFire(schedule.id, dueAt, next))) return false;
    try {
      const actor: Actor = { userId: schedule.owner_id, role: "member", via: "session" };
      await this.#runs.trigger(
        actor,
        schedule.workflow_id,
        { input: JSON.parse(schedule.input) as Record<string, unknown> },
        { trigger: "schedule", idempotencyKey: `schedule:${schedule.id}:${dueAt}`, scheduleId: schedule.id },
      );
      return true;
    } catch (error) {
      // Refused (the owner's run limits, an invalid workflow): this fire is skipped, not retried.
      // Anything else (the database went away) is a failure of the scheduler, counted as one.
      if (error instanceof AppError) {
        this.#logger.warn(
          { err: error, code: error.code, schedule: schedule.id, fire: dueAt },
          "scheduled run not started",
        );
      } else {
        this.#monitor.failed("schedules", "scheduled run not started", error, { schedule: schedule.id, fire: dueAt });
      }
      return false;
    }
  }

  /**
   * Starts firing schedules from this process (its timer: the database polled every `pollEveryMs`,
   * or Redis's job schedulers).
   */
  start(pollEveryMs?: number): void {
    this.#timer.start(
      {
        tick: () => this.tick(),
        fire: async (scheduleId, at) => {
          await this.fireOne(scheduleId, at);
        },
        enabled: () => this.#schedules.listEnabled(),
      },
      pollEveryMs,
    );
  }

  /** Stops firing (what the timer holds is released in the background; close() waits for it). */
  stop(): void {
    void this.close();
  }

  async close(): Promise<void> {
    await this.#timer.close().catch(() => undefined);
  }

  /**
   * Tells the timer of a saved or deleted schedule. The database is the record: a timer that
   * cannot follow now (Redis away) is reported, not thrown, and its next reconcile catches up.
   */
  async #follow(scheduleId: string, tell: () => Promise<void>): Promise<void> {
    try {
      await tell();
    } catch (error) {
      this.#monitor.failed("schedules", "schedule saved; its job scheduler will be matched once Redis answers", error, {
        schedule: scheduleId,
      });
    }
  }

  #fields(body: ScheduleBody, now = new Date()) {
    const timezone = body.timezone ?? "UTC";
    checkTimezone(timezone);
    const enabled = body.enabled ?? true;
    const next = nextFire(body.cron, timezone, now);
    checkInterval(body.cron, timezone, this.#minIntervalMs / 1000, now);
    return {
      cron: body.cron,
      timezone,
      input: JSON.stringify(body.input ?? {}),
      enabled,
      nextFireAt: enabled ? next : null,
    };
  }

  async #workflow(actor: Actor, workflowId: string) {
    return assertOwned(await this.#workflows.findById(workflowId), actor, "WORKFLOW_NOT_FOUND");
  }

  async #owned(actor: Actor, workflowId: string, id: string): Promise<ScheduleRow> {
    await this.#workflow(actor, workflowId);
    const schedule = await this.#schedules.findById(id);
    if (!schedule || schedule.workflow_id !== workflowId) throw new AppError("SCHEDULE_NOT_FOUND");
    return schedule;
  }
}
