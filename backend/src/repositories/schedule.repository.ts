import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, ScheduleRow } from "../models/database.model.js";
import { nowIso } from "./clock.js";

export interface ScheduleFields {
  cron: string;
  timezone: string;
  input: string;
  enabled: boolean;
  nextFireAt: string | null;
}

export class ScheduleRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(workflowId: string, ownerId: string, fields: ScheduleFields): Promise<ScheduleRow> {
    const now = nowIso();
    const row: ScheduleRow = {
      id: randomUUID(),
      workflow_id: workflowId,
      owner_id: ownerId,
      cron: fields.cron,
      timezone: fields.timezone,
      input: fields.input,
      enabled: fields.enabled ? 1 : 0,
      next_fire_at: fields.nextFireAt,
      last_fire_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.#db.insertInto("schedules").values(row).execute();
    return row;
  }

  findById(id: string): Promise<ScheduleRow | undefined> {
    return this.#db.selectFrom("schedules").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** Oldest first; two made in the same millisecond keep one order between calls. */
  listByWorkflow(workflowId: string): Promise<ScheduleRow[]> {
    return this.#db
      .selectFrom("schedules")
      .selectAll()
      .where("workflow_id", "=", workflowId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  }

  async update(id: string, fields: ScheduleFields): Promise<ScheduleRow | undefined> {
    return this.#db
      .updateTable("schedules")
      .set({
        cron: fields.cron,
        timezone: fields.timezone,
        input: fields.input,
        enabled: fields.enabled ? 1 : 0,
        next_fire_at: fields.nextFireAt,
        updated_at: nowIso(),
      })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom("schedules").where("id", "=", id).execute();
  }

  /** Every enabled schedule (the Redis mode compares them with its job schedulers). */
  listEnabled(): Promise<ScheduleRow[]> {
    return this.#db.selectFrom("schedules").selectAll().where("enabled", "=", 1).orderBy("id").execute();
  }

  findDue(now: string, limit: number): Promise<ScheduleRow[]> {
    return this.#db
      .selectFrom("schedules")
      .selectAll()
      .where("enabled", "=", 1)
      .where("next_fire_at", "is not", null)
      .where("next_fire_at", "<=", now)
      .orderBy("next_fire_at")
      .limit(limit)
      .execute();
  }

  /**
   * Claims one fire: moves next_fire_at on only if it still has the value the caller saw, so two
   * schedulers (or a restart) never fire the same time twice.
   */
  async claimFire(id: string, dueAt: string, nextFireAt: string | null): Promise<boolean> {
    const result = await this.#db
      .updateTable("schedules")
      .set({ next_fire_at: nextFireAt, last_fire_at: dueAt, updated_at: nowIso() })
      .where("id", "=", id)
      .where("next_fire_at", "=", dueAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
