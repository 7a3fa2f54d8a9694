import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge } from "../../test/engine-harness.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

const quick = { name: "scheduled", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

describe("schedules", () => {
  let studio: TestStudio;
  let owner: Session;
  let other: Session;
  let workflowId: string;

  beforeAll(async () => {
    studio = await startTestStudio({ STUDIO_ALLOW_SIGNUP: "1" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    other = await registerMember(studio, "other@example.com");
    workflowId = (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: quick })
    ).json().data.id;
  });
  afterAll(() => studio.close());

  const create = (payload: object, session = owner) =>
    studio.app.inject({
      method: "POST",
      url: `/api/workflows/${workflowId}/schedules`,
      headers: session.auth,
      payload,
    });
  const runsOf = () =>
    studio.container.database.db
      .selectFrom("runs")
      .select(["trigger", "input", "idempotency_key"])
      .where("trigger", "=", "schedule")
      .execute();

  it("creates, lists, changes and deletes schedules, computing the next fire in the time zone", async () => {
    const created = await create({ cron: "0 9 * * 1-5", timezone: "Asia/Ho_Chi_Minh", input: { n: 1 } });
    expect(created.statusCode).toBe(201);
    const schedule = created.json().data;
    expect(schedule).toMatchObject({ enabled: true, timezone: "Asia/Ho_Chi_Minh", input: { n: 1 } });
    // 09:00 in Ho Chi Minh City is 02:00 UTC.
    expect(new Date(schedule.next_fire_at).getUTCHours()).toBe(2);
    const url = `/api/workflows/${workflowId}/schedules/${schedule.id}`;
    const disabled = await studio.app.inject({
      method: "PUT",
      url,
      headers: owner.auth,
      payload: { cron: "0 9 * * 1-5", enabled: false },
    });
    expect(disabled.json().data).toMatchObject({ enabled: false, next_fire_at: null, timezone: "UTC" });
    const list = await studio.app.inject({
      method: "GET",
      url: `/api/workflows/${workflowId}/schedules`,
      headers: owner.auth,
    });
    expect(list.json().data.map((s: { id: string }) => s.id)).toContain(schedule.id);
    expect((await studio.app.inject({ method: "DELETE", url, headers: owner.auth })).statusCode).toBe(200);
    expect((await studio.app.inject({ method: "DELETE", url, headers: owner.auth })).json().error.code).toBe(
      "SCHEDULE_NOT_FOUND",
    );
  });

  it("starts one run per fire, and one only for fires missed while the server was down", async () => {
    const schedule = (await create({ cron: "* * * * *", input: { n: 5 } })).json().data;
    // Pretend the server was down for an hour: sixty fires were missed.
    const missedSince = new Date(Date.now() - 3600_000).toISOString();
    await studio.container.database.db
      .updateTable("schedules")
      .set({ next_fire_at: missedSince })
      .where("id", "=", schedule.id)
      .execute();
    const [first, second] = await Promise.all([studio.container.schedules.tick(), studio.container.schedules.tick()]);
    expect(first + second).toBe(1);
    await studio.container.runs.idle();
    const runs = (await runsOf()).filter((r) => r.idempotency_key === `schedule:${schedule.id}:${missedSince}`);
    expect(runs).toHaveLength(1);
    expect(JSON.parse(runs[0]?.input as string)).toEqual({ n: 5 });
    const after = (
      await studio.app.inject({ method: "GET", url: `/api/workflows/${workflowId}/schedules`, headers: owner.auth })
    )
      .json()
      .data.find((s: { id: string }) => s.id === schedule.id);
    expect(Date.parse(after.next_fire_at)).toBeGreaterThan(Date.now());
    expect(after.last_fire_at).toBe(missedSince);
    expect(await studio.container.schedules.tick()).toBe(0);
  });

  it.each([
    [{ cron: "61 * * * *" }, "SCHEDULE_CRON_INVALID"],
    [{ cron: "every day" }, "SCHEDULE_CRON_INVALID"],
    [{ cron: "* * * * *", timezone: "Mars/Olympus_Mons" }, "SCHEDULE_TIMEZONE_INVALID"],
  ])("refuses %j with %s", async (payload, code) => {
    const response = await create(payload);
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe(code);
  });

  it("answers 404 for another user's workflow", async () => {
    const response = await create({ cron: "* * * * *" }, other);
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe("WORKFLOW_NOT_FOUND");
  });

  it.each([
    ["* * * * * *", 1],
    ["*/30 * * * * *", 30],
    ["0,10 * * * * *", 10],
  ])("refuses %s, which fires more often than the minimum interval", async (cron, interval) => {
    const response = await create({ cron });
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toMatchObject({
      code: "SCHEDULE_INTERVAL_TOO_SHORT",
      details: { cron, min_interval_seconds: 60, interval_seconds: interval },
    });
  });

  it("refuses a change to a cron that fires too often, and keeps the schedule as it was", async () => {
    const schedule = (await create({ cron: "* * * * *" })).json().data;
    expect(schedule.cron).toBe("* * * * *");
    const changed = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${workflowId}/schedules/${schedule.id}`,
      headers: owner.auth,
      payload: { cron: "*/5 * * * * *" },
    });
    expect(changed.json().error.code).toBe("SCHEDULE_INTERVAL_TOO_SHORT");
    const list = (
      await studio.app.inject({ method: "GET", url: `/api/workflows/${workflowId}/schedules`, headers: owner.auth })
    ).json().data;
    expect(list.find((s: { id: string }) => s.id === schedule.id).cron).toBe("* * * * *");
  });

  it("refuses a schedule that fires every second on create and on change, and nothing changes", async () => {
    const schedules = () => studio.container.database.db.selectFrom("schedules").selectAll().orderBy("id").execute();
    const before = await schedules();
    const created = await create({ cron: "* * * * * *" });
    expect(created.statusCode).toBe(422);
    expect(created.json().error.code).toBe("SCHEDULE_INTERVAL_TOO_SHORT");
    expect(await schedules()).toEqual(before);
    const kept = (await create({ cron: "0 9 * * *", timezone: "Asia/Ho_Chi_Minh" })).json().data;
    const row = await studio.container.database.db
      .selectFrom("schedules")
      .selectAll()
      .where("id", "=", kept.id)
      .executeTakeFirst();
    const changed = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${workflowId}/schedules/${kept.id}`,
      headers: owner.auth,
      payload: { cron: "* * * * * *", timezone: "UTC", enabled: false },
    });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().error).toMatchObject({
      code: "SCHEDULE_INTERVAL_TOO_SHORT",
      details: { interval_seconds: 1, min_interval_seconds: 60 },
    });
    expect(
      await studio.container.database.db
        .selectFrom("schedules")
        .selectAll()
        .where("id", "=", kept.id)
        .executeTakeFirst(),
    ).toEqual(row);
  });

  describe("preview of a cron's next fire times", () => {
    const preview = (payload: object, session: Session | null = owner) =>
      studio.app.inject({
        method: "POST",
        url: "/api/schedules/preview",
        headers: session ? session.auth : {},
        payload,
      });

    it("lists the next five fire times in the time zone", async () => {
      const response = await preview({ cron: "0 9 * * 1-5", timezone: "Asia/Ho_Chi_Minh" });
      expect(response.statusCode).toBe(200);
      const { next, timezone, cron } = response.json().data;
      expect({ timezone, cron }).toEqual({ timezone: "Asia/Ho_Chi_Minh", cron: "0 9 * * 1-5" });
      expect(next).toHaveLength(5);
      const times = (next as string[]).map((at) => new Date(at));
      expect(times[0]?.getTime()).toBeGreaterThan(Date.now() - 1000);
      for (const [i, at] of times.entries()) {
        // 09:00 in Ho Chi Minh City (UTC+7, no daylight saving) is 02:00 UTC, the same weekday.
        expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()]).toEqual([2, 0, 0]);
        expect([1, 2, 3, 4, 5]).toContain(at.getUTCDay());
        if (i > 0) expect(at.getTime()).toBeGreaterThan(times[i - 1]?.getTime() as number);
      }
    });

    it("gives the same times a saved schedule would, from a known moment, across a weekend", () => {
      // 2030-01-04 is a Friday.
      const { next } = studio.container.schedules.preview(
        "0 9 * * 1-5",
        "Asia/Ho_Chi_Minh",
        new Date("2030-01-04T00:00:00Z"),
      );
      expect(next).toEqual([
        "2030-01-04T02:00:00.000Z",
        "2030-01-07T02:00:00.000Z",
        "2030-01-08T02:00:00.000Z",
        "2030-01-09T02:00:00.000Z",
        "2030-01-10T02:00:00.000Z",
      ]);
      // Daylight saving: 09:00 in New York is 14:00 UTC in winter and 13:00 UTC from 10 March 2030.
      expect(
        studio.container.schedules.preview("0 9 * * *", "America/New_York", new Date("2030-03-08T00:00:00Z")).next,
      ).toEqual([
        "2030-03-08T14:00:00.000Z",
        "2030-03-09T14:00:00.000Z",
        "2030-03-10T13:00:00.000Z",
        "2030-03-11T13:00:00.000Z",
        "2030-03-12T13:00:00.000Z",
      ]);
    });

    it("uses UTC when no time zone is given", async () => {
      const { timezone, next } = (await preview({ cron: "0 0 1 1 *" })).json().data;
      expect(timezone).toBe("UTC");
      expect((next as string[]).map((at) => at.slice(4))).toEqual(Array(5).fill("-01-01T00:00:00.000Z"));
    });

    it.each([
      [{ cron: "61 * * * *" }, "SCHEDULE_CRON_INVALID"],
      [{ cron: "every day" }, "SCHEDULE_CRON_INVALID"],
      [{ cron: "* * * * *", timezone: "Mars/Olympus_Mons" }, "SCHEDULE_TIMEZONE_INVALID"],
      [{ cron: "* * * * * *" }, "SCHEDULE_INTERVAL_TOO_SHORT"],
      [{ cron: "*/30 * * * * *", timezone: "Asia/Ho_Chi_Minh" }, "SCHEDULE_INTERVAL_TOO_SHORT"],
      [{ cron: "" }, "VALIDATION_FAILED"],
      [{ timezone: "UTC" }, "VALIDATION_FAILED"],
      [{ cron: "* * * * *", input: {} }, "VALIDATION_FAILED"],
    ])("refuses %j with %s", async (payload, code) => {
      const response = await preview(payload);
      expect(response.statusCode).toBe(422);
      expect(response.json().error.code).toBe(code);
    });

    it("needs a signed-in user", async () => {
      const response = await preview({ cron: "* * * * *" }, null);
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe("AUTH_REQUIRED");
    });
  });

  it("lists the runs a schedule started, and only those", async () => {
    const schedule = (await create({ cron: "* * * * *", input: { n: 7 } })).json().data;
    const sibling = (await create({ cron: "* * * * *", input: { n: 8 } })).json().data;
    const due = new Date(Date.now() - 60_000).toISOString();
    await studio.container.database.db
      .updateTable("schedules")
      .set({ next_fire_at: due })
      .where("id", "in", [schedule.id, sibling.id])
      .execute();
    await studio.container.schedules.tick();
    await studio.container.runs.idle();
    const listed = await studio.app.inject({
      method: "GET",
      url: `/api/runs?schedule_id=${schedule.id}`,
      headers: owner.auth,
    });
    expect(listed.statusCode).toBe(200);
    const runs = listed.json().data;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: "schedule", schedule_id: schedule.id, workflow_id: workflowId });
    const run = (await studio.app.inject({ method: "GET", url: `/api/runs/${runs[0].id}`, headers: owner.auth })).json()
      .data;
    expect(run).toMatchObject({ schedule_id: schedule.id, input: { n: 7 } });
    const others = (
      await studio.app.inject({ method: "GET", url: `/api/runs?schedule_id=${sibling.id}`, headers: owner.auth })
    ).json().data;
    expect(others.map((r: { schedule_id: string }) => r.schedule_id)).toEqual([sibling.id]);
  });

  it("never fires one schedule twice within the minimum interval, whatever its cron says", async () => {
    // A schedule saved before the check existed (or written by hand): every second.
    const t0 = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const id = randomUUID();
    await studio.container.database.db
      .insertInto("schedules")
      .values({
        id,
        workflow_id: workflowId,
        owner_id: owner.userId,
        cron: "* * * * * *",
        timezone: "UTC",
        input: "{}",
        enabled: 1,
        next_fire_at: t0.toISOString(),
        last_fire_at: null,
        created_at: t0.toISOString(),
        updated_at: t0.toISOString(),
      })
      .execute();
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
    const keys = async () =>
      (await runsOf()).map((r) => r.idempotency_key).filter((k) => k?.startsWith(`schedule:${id}:`));
    // The scheduler checks every second; other schedules of this file may fire too, so this one's
    // fires are counted by their runs.
    const fires: number[] = [];
    for (let second = 0; second <= 130; second++) {
      const before = (await keys()).length;
      await studio.container.schedules.tick(at(second));
      if ((await keys()).length > before) fires.push(second);
    }
    expect(fires).toEqual([0, 60, 120]);
    expect((await keys()).sort()).toEqual([0, 60, 120].map((s) => `schedule:${id}:${at(s).toISOString()}`));
    await studio.container.database.db.deleteFrom("schedules").where("id", "=", id).execute();
  });
});

describe("schedules and the owner's run limits", () => {
  let studio: TestStudio;
  let owner: Session;
  const lines: { msg?: string; code?: string; schedule?: string }[] = [];

  beforeAll(async () => {
    // The queue is not started: the first fire's run stays queued and fills the owner's limit.
    studio = await startTestStudio(
      { STUDIO_USER_MAX_QUEUED: "1", STUDIO_LOG_LEVEL: "warn" },
      { logTo: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    );
    owner = await setupOwner(studio);
  });
  afterAll(() => studio.close());

  it("skips a fire that the owner's limits refuse, logs it once, and does not retry it", async () => {
    const workflowId = (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: quick })
    ).json().data.id;
    const schedule = (
      await studio.app.inject({
        method: "POST",
        url: `/api/workflows/${workflowId}/schedules`,
        headers: owner.auth,
        payload: { cron: "* * * * *" },
      })
    ).json().data;
    const t0 = new Date(Date.parse(schedule.next_fire_at));
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
    expect(await studio.container.schedules.tick(at(0))).toBe(1);
    expect(await studio.container.schedules.tick(at(60))).toBe(0);
    expect(await studio.container.schedules.tick(at(61))).toBe(0);
    const refusals = lines.filter((l) => l.msg === "scheduled run not started");
    expect(refusals).toEqual([expect.objectContaining({ code: "RUN_LIMIT_REACHED", schedule: schedule.id })]);
    const after = (
      await studio.app.inject({ method: "GET", url: `/api/workflows/${workflowId}/schedules`, headers: owner.auth })
    ).json().data[0];
    expect(after).toMatchObject({ last_fire_at: at(60).toISOString(), next_fire_at: at(120).toISOString() });
    const runs = await studio.container.database.db.selectFrom("runs").select("id").execute();
    expect(runs).toHaveLength(1);
  });
});
