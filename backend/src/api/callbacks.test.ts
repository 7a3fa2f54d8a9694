import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edge, type Receiver, startReceiver } from "../../test/engine-harness.js";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

/** The verification from docs/en/runs.md. */
function verify(secret: string, header: string, rawBody: string): boolean {
  const { t, v1 } = Object.fromEntries(header.split(",").map((part) => part.split("="))) as { t: string; v1: string };
  if (Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex");
  return v1.length === expected.length && timingSafeEqual(Buffer.from(v1), Buffer.from(expected));
}

const quick = { name: "quick", state: [{ name: "n", type: "number" }], nodes: [], edges: [edge("start", "end")] };

describe("signed callbacks", () => {
  let receiver: Receiver;
  let studio: TestStudio;
  let owner: Session;
  let key: string;
  let secret: string;
  let workflowId: string;

  beforeAll(async () => {
    // The first delivery of each run fails with 500; the retry succeeds.
    const seen = new Set<string>();
    receiver = await startReceiver((request) => {
      const runId = String(request.headers["x-studio-run-id"]);
      if (!seen.has(runId)) {
        seen.add(runId);
        return { status: 500, json: { error: "try later" } };
      }
      return { json: { ok: true } };
    });
    studio = await startTestStudio({ STUDIO_EGRESS_ALLOW: "127.0.0.1", STUDIO_CALLBACK_RETRY_BASE_MS: "50" });
    await studio.container.runs.start(60_000);
    owner = await setupOwner(studio);
    const created = (
      await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "cb" } })
    ).json().data;
    key = created.key;
    secret = created.callback_secret;
    workflowId = (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: quick })
    ).json().data.id;
  });
  afterAll(async () => {
    await studio.close();
    await receiver.close();
  });

  it("posts the result signed with the key's secret, retrying until it is accepted", async () => {
    expect(secret).toMatch(/^whsec_/);
    const response = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: { input: { n: 7 }, callback_url: `${receiver.url}/hook` },
    });
    const runId = response.json().data.run_id;
    await studio.container.runs.idle();
    await studio.container.callbacks.idle();

    const calls = receiver.requests.filter((r) => r.headers["x-studio-run-id"] === runId);
    expect(calls).toHaveLength(2);
    const last = calls[1] as (typeof calls)[number];
    const raw = JSON.stringify(last.body);
    expect(last.body).toMatchObject({ run_id: runId, workflow_id: workflowId, status: "ok", output: { n: 7 } });
    expect(verify(secret, String(last.headers["x-studio-signature"]), raw)).toBe(true);
    expect(verify(secret, String(last.headers["x-studio-signature"]), raw.replace('"n":7', '"n":8'))).toBe(false);
    expect(verify("whsec_wrong", String(last.headers["x-studio-signature"]), raw)).toBe(false);

    const deliveries = await studio.container.database.db
      .selectFrom("callback_deliveries")
      .select(["attempt", "status_code"])
      .where("run_id", "=", runId)
      .orderBy("attempt")
      .execute();
    expect(deliveries).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
  });
});

describe("callback URLs", () => {
  let studio: TestStudio;
  let key: string;
  let workflowId: string;
  beforeAll(async () => {
    studio = await startTestStudio();
    const owner = await setupOwner(studio);
    key = (
      await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "cb" } })
    ).json().data.key;
    workflowId = (
      await studio.app.inject({ method: "POST", url: "/api/workflows", headers: owner.auth, payload: quick })
    ).json().data.id;
  });
  afterAll(() => studio.close());

  it.each([
    ["http://127.0.0.1:9/x", "CALLBACK_URL_NOT_ALLOWED", "loopback"],
    ["http://2130706433/x", "CALLBACK_URL_NOT_ALLOWED", "loopback"],
    ["http://10.1.2.3/x", "CALLBACK_URL_NOT_ALLOWED", "private"],
    ["http://169.254.169.254/latest/meta-data", "CALLBACK_URL_NOT_ALLOWED", "metadata"],
    ["http://[::1]:8080/", "CALLBACK_URL_NOT_ALLOWED", "loopback"],
    ["http://[::ffff:192.168.0.1]/", "CALLBACK_URL_NOT_ALLOWED", "private"],
    ["http://[64:ff9b::7f00:1]/", "CALLBACK_URL_NOT_ALLOWED", "loopback"],
    ["http://[2002:a9fe:a9fe::1]/", "CALLBACK_URL_NOT_ALLOWED", "metadata"],
    ["ftp://example.com/x", "CALLBACK_URL_INVALID", undefined],
    ["not a url", "CALLBACK_URL_INVALID", undefined],
  ])("refuses %s with %s and creates no run", async (url, code, addressClass) => {
    const response = await studio.app.inject({
      method: "POST",
      url: `/api/hooks/workflows/${workflowId}/runs`,
      headers: { authorization: `Bearer ${key}` },
      payload: { callback_url: url },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe(code);
    expect(response.json().error.details.address_class).toBe(addressClass);
    const runs = await studio.container.database.db.selectFrom("runs").select("id").execute();
    expect(runs).toEqual([]);
  });
});
