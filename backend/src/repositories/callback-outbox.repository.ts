// The callback outbox: one row per run whose ending must be POSTed to its callback URL. The row is
// written in the transaction that ends the run, so no ending is lost to a crash; a process claims
// a due row (an atomic update) before it delivers, so two processes never send the same attempt.
import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../models/database.model.js";
import { nowIso } from "./clock.js";
import { preparedQuery } from "./prepared-query.js";

export interface ClaimedDelivery {
  runId: string;
  url: string;
  /** The attempt about to be made (1 for the first). */
  attempt: number;
  /** Fences the row's update: only the claim that sent the attempt records it. */
  claim: string;
}

export type AttemptVerdict = { kind: "delivered" } | { kind: "retry"; at: string } | { kind: "failed" };

/**
 * Queues the callback of a run that has just ended, inside the transaction that ended it; nothing
 * for a run without a callback URL, and only once per run.
 */
export async function queueCallback(tx: Transaction<Database>, runId: string, now = nowIso()): Promise<void> {
  await insertCallback(tx, { runId, now });
}

// Written in every run's ending: compiled once.
const insertCallback = preparedQuery<{ runId: string; now: string }>((db: Kysely<Database>, p) =>
  db
    .insertInto("callback_outbox")
    .columns(["run_id", "url", "status", "attempts", "next_attempt_at", "created_at", "updated_at"])
    .expression((eb) =>
      eb
        .selectFrom("runs")
        .select((s) => [
          "runs.id",
          "runs.callback_url",
          s.val("pending").as("status"),
          s.val(0).as("attempts"),
          s.val(p.now).as("next_attempt_at"),
          s.val(p.now).as("created_at"),
          s.val(p.now).as("updated_at"),
        ])
        .where("runs.id", "=", p.runId)
        .where("runs.callback_url", "is not", null),
    )
    .onConflict((oc) => oc.column("run_id").doNothing()),
);

export class CallbackOutboxRepository {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Pending rows whose next attempt is due and that no live claim holds. */
  async due(now: string, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom("callback_outbox")
      .select("run_id")
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
      .orderBy("next_attempt_at")
      .limit(limit)
      .execute();
    return rows.map((row) => row.run_id);
  }

  /** Takes a due row for one attempt until `until`; undefined when it is not due or another process holds it. */
  async claim(runId: string, owner: string, now: string, until: string): Promise<ClaimedDelivery | undefined> {
    const claim = `${owner}:${randomUUID()}`;
    const row = await this.#db
      .updateTable("callback_outbox")
      .set({ claimed_by: claim, claimed_until: until, updated_at: now })
      .where("run_id", "=", runId)
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
      .returning(["url", "attempts"])
      .executeTakeFirst();
    return row ? { runId, url: row.url, attempt: row.attempts + 1, claim } : undefined;
  }

  /**
   * Records an attempt (callback_deliveries) and what comes next for the row, in one transaction,
   * while the claim holds; false when the claim was lost (another process took the row over).
   */
  async finishAttempt(
    delivery: ClaimedDelivery,
    result: { statusCode: number | null; error: string | null },
    verdict: AttemptVerdict,
  ): Promise<boolean> {
    const now = nowIso();
    return this.#db.transaction().execute(async (tx) => {
      const updated = await tx
        .updateTable("callback_outbox")
        .set({
          attempts: delivery.attempt,
          status: verdict.kind === "retry" ? "pending" : verdict.kind,
          ...(verdict.kind === "retry" ? { next_attempt_at: verdict.at } : {}),
          claimed_by: null,
          claimed_until: null,
          updated_at: now,
        })
        .where("run_id", "=", delivery.runId)
        .where("claimed_by", "=", delivery.claim)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await tx
        .insertInto("callback_deliveries")
        .values({
          id: randomUUID(),
          run_id: delivery.runId,
          url: delivery.url,
          attempt: delivery.attempt,
          status_code: result.statusCode,
          error: result.error,
          created_at: now,
        })
        .execute();
      return true;
    });
  }

  /** When the next pending row can be attempted (its retry time, or the end of a claim on it). */
  async nextDueAt(): Promise<string | null> {
    const row = await this.#db
      .selectFrom("callback_outbox")
      .select((eb) =>
        eb.fn
          .min(
            eb
              .case()
              .when(eb.and([eb("claimed_until", "is not", null), eb("claimed_until", ">", eb.ref("next_attempt_at"))]))
              .then(eb.ref("claimed_until"))
              .else(eb.ref("next_attempt_at"))
              .end(),
          )
          .as("at"),
      )
      .where("status", "=", "pending")
      .executeTakeFirst();
    return (row?.at as string | null | undefined) ?? null;
  }

  async pendingCount(): Promise<number> {
    const row = await this.#db
      .selectFrom("callback_outbox")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  find(runId: string) {
    return this.#db.selectFrom("callback_outbox").selectAll().where("run_id", "=", runId).executeTakeFirst();
  }
}
