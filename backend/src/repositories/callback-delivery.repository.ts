import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";

export interface DeliveryAttempt {
  runId: string;
  url: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
}

export class CallbackDeliveryRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async record(attempt: DeliveryAttempt): Promise<void> {
    await this.#db
      .insertInto("callback_deliveries")
      .values({
        id: randomUUID(),
        run_id: attempt.runId,
        url: attempt.url,
        attempt: attempt.attempt,
        status_code: attempt.statusCode,
        error: attempt.error,
        created_at: nowIso(),
      })
      .execute();
  }

  listForRun(runId: string) {
    return this.#db
      .selectFrom("callback_deliveries")
      .select(["attempt", "url", "status_code", "error", "created_at"])
      .where("run_id", "=", runId)
      .orderBy("attempt")
      .execute();
  }
}
