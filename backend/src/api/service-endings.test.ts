// A cancel or an expiry writes the run's final status and its run_finished event in one
// transaction: when the event cannot be written, the status is not changed either (nothing is
// half-written), and the next attempt records both. The event's write fails for real: a trigger
// in the database refuses run_finished rows while the test holds it.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { approvalWorkflow, edge } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import type { Actor } from "../core/authz.js";

const postgres = inject("dbKind") === "postgres";
const REFUSAL = "run_finished refused by the test";

describe("endings the service records itself", () => {
  let studio: TestStudio;
  let owner: Session;
  let actor: Actor;

  beforeAll(async () => {
    studio = await startTestStudio();
    owner = await setupOwner(studio);
    actor = { userId: owner.userId, role: "owner", via: "session" };
  });
  afterAll(() => studio.close());

  const db = () => studio.container.database.db;

  /** Makes every insert of a run_finished event fail until the returned function is called. */
  async function refuseFinishedEvents(): Promise<() => Promise<void>> {
    if (postgres) {
      await sql
        .raw(
          `create function refuse_finished() returns trigger as $$ begin if new.type = 'run_finished' then raise exception '${REFUSAL}'; end if; return new; end $$ language plpgsql`,
        )
        .execute(db());
      await sql
        .raw(
          "create trigger refuse_finished before insert on run_events for each row execute function refuse_finished()",
        )
        .execute(db());
      return async () => {
        await sql.raw("drop trigger refuse_finished on run_events").execute(db());
        await sql.raw("drop function refuse_finished()").execute(db());
      };
    }
    await sql
      .raw(
        `create trigger refuse_finished before insert on run_events when new.type = 'run_finished' begin select raise(abort, '${REFUSAL}'); end`,
      )
      .execute(db());
    return async () => {
      await sql.raw("drop trigger refuse_finished").execute(db());
    };
  }

  async function stored(runId: string) {
    const run = await db()
      .selectFrom("runs")
      .select(["status", "finished_at"])
      .where("id", "=", runId)
      .executeTakeFirst();
    const events = await db()
      .selectFrom("run_events")
      .select(["seq", "type", "data"])
      .where("run_id", "=", runId)
      .orderBy("seq")
      .execute();
    return { run, events };
  }

  it("cancels a run with its run_finished event, or not at all", async () => {
    const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };
    // Created and left queued: nothing executes it here.
    const { id } = await studio.container.runs.createForDocument(actor, quick, { mode: "full" }, "api");
    const before = await stored(id);
    expect(before.run?.status).toBe("queued");

    const allow = await refuseFinishedEvents();
    try {
      await expect(studio.container.runs.cancel(actor, id)).rejects.toThrow(REFUSAL);
    } finally {
      await allow();
    }
    expect(await stored(id)).toEqual(before);

    expect((await studio.container.runs.cancel(actor, id)).status).toBe("cancelled");
    const after = await stored(id);
    expect(after.run?.status).toBe("cancelled");
    expect(after.run?.finished_at).not.toBeNull();
    expect(after.events.map((event) => [event.seq, event.type])).toEqual([
      ...before.events.map((event) => [event.seq, event.type]),
      [before.events.length + 1, "run_finished"],
    ]);
    expect(JSON.parse(after.events.at(-1)?.data as string)).toMatchObject({ status: "cancelled" });
  });

  it("expires a wait with its run_finished event, or not at all", async () => {
    const { id } = await studio.container.runs.createForDocument(
      actor,
      approvalWorkflow({ timeoutSeconds: 60 }),
      { mode: "full" },
      "api",
    );
    await studio.container.runs.executeNow(id);
    const before = await stored(id);
    expect(before.run?.status).toBe("waiting");
    expect(before.events.at(-1)?.type).toBe("run_waiting");

    const allow = await refuseFinishedEvents();
    try {
      await expect(studio.container.runs.expire(id)).rejects.toThrow(REFUSAL);
    } finally {
      await allow();
    }
    expect(await stored(id)).toEqual(before);

    expect(await studio.container.runs.expire(id)).toBe(true);
    const after = await stored(id);
    expect(after.run?.status).toBe("expired");
    expect(after.events.map((event) => [event.seq, event.type])).toEqual([
      ...before.events.map((event) => [event.seq, event.type]),
      [before.events.length + 1, "run_finished"],
    ]);
    expect(JSON.parse(after.events.at(-1)?.data as string)).toMatchObject({ status: "expired" });
  });
});
