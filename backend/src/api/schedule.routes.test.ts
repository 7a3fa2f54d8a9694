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
});
