// Schedules: cron expressions (with seconds optional) in a time zone, each fire one run. A fire
// missed while the server was down runs once when it comes back, never once per missed time.
import { CronExpressionParser } from "cron-parser";
import { type Actor, assertOwned } from "../core/authz.js";
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/logging.js";
import type { ScheduleRow } from "../models/database.model.js";
import type { ScheduleRepository } from "../repositories/schedule.repository.js";
import type { WorkflowRepository } from "../repositories/workflow.repository.js";
import type { RunService } from "./runs/run.service.js";

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

export class ScheduleService {
  readonly #schedules: ScheduleRepository;
  readonly #workflows: WorkflowRepository;
  readonly #runs: RunService;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: {
    schedules: ScheduleRepository;
    workflows: WorkflowRepository;
    runs: RunService;
    logger: Logger;
  }) {
    this.#schedules = deps.schedules;
    this.#workflows = deps.workflows;
    this.#runs = deps.runs;
    this.#logger = deps.logger;
  }

  async list(actor: Actor, workflowId: string): Promise<ScheduleView[]> {
    await this.#workflow(actor, workflowId);
    return (await this.#schedules.listByWorkflow(workflowId)).map(toScheduleView);
  }

  async create(actor: Actor, workflowId: string, body: ScheduleBody): Promise<ScheduleView> {
    await this.#workflow(actor, workflowId);
    return toScheduleView(await this.#schedules.create(workflowId, actor.userId, this.#fields(body)));
  }

  async update(actor: Actor, workflowId: string, id: string, body: ScheduleBody): Promise<ScheduleView> {
    await this.#owned(actor, workflowId, id);
    const updated = await this.#schedules.update(id, this.#fields(body));
    if (!updated) throw new AppError("SCHEDULE_NOT_FOUND");
    return toScheduleView(updated);
  }

  async delete(actor: Actor, workflowId: string, id: string): Promise<void> {
    await this.#owned(actor, workflowId, id);
    await this.#schedules.delete(id);
  }

  /** Fires every due schedule once; returns how many runs were started. */
  async tick(now = new Date()): Promise<number> {
    let fired = 0;
    for (const schedule of await this.#schedules.findDue(now.toISOString(), 100)) {
      const dueAt = schedule.next_fire_at as string;
      // The next fire is computed from now, not from the missed time: a long outage fires once.
      const next = nextFire(schedule.cron, schedule.timezone, now);
      if (!(await this.#schedules.claimFire(schedule.id, dueAt, next))) continue;
      try {
        const actor: Actor = { userId: schedule.owner_id, role: "member", via: "session" };
        await this.#runs.trigger(
          actor,
          schedule.workflow_id,
          { input: JSON.parse(schedule.input) as Record<string, unknown> },
          { trigger: "schedule", idempotencyKey: `schedule:${schedule.id}:${dueAt}` },
        );
        fired++;
      } catch (error) {
        this.#logger.warn({ err: error, schedule: schedule.id }, "scheduled run not started");
      }
    }
    return fired;
  }

  start(everyMs = 1000): void {
    this.#timer = setInterval(
      () => void this.tick().catch((error: unknown) => this.#logger.warn({ err: error }, "scheduler tick failed")),
      everyMs,
    );
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  #fields(body: ScheduleBody) {
    const timezone = body.timezone ?? "UTC";
    checkTimezone(timezone);
    const enabled = body.enabled ?? true;
    const next = nextFire(body.cron, timezone, new Date());
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
