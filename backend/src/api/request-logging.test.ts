// Credentials in a request URL never reach the request log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";

describe("request log", () => {
  let studio: TestStudio;
  let owner: Session;
  let base: string;
  const lines: string[] = [];

  beforeAll(async () => {
    studio = await startTestStudio(
      { STUDIO_LOG_LEVEL: "info" },
      {
        logTo: {
          write: (line: string) => {
            lines.push(line);
          },
        },
      },
    );
    owner = await setupOwner(studio);
    await studio.app.listen({ port: 0, host: "127.0.0.1" });
    base = `127.0.0.1:${(studio.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => studio.close());

  const loggedUrls = () =>
    lines
      .map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string } })
      .filter((entry) => entry.msg === "incoming request")
      .map((entry) => entry.req?.url);

  it("blanks the session token of /ws/run?token=…", async () => {
    const socket = new WebSocket(`ws://${base}/ws/run?token=${owner.token}&after=3`);
    await new Promise<void>((resolve, reject) => {
      socket.on("message", (raw) => {
        if (JSON.parse(String(raw)).type === "ready") resolve();
      });
      socket.on("error", reject);
    });
    socket.close();
    expect(loggedUrls()).toContain("/ws/run?token=[redacted]&after=3");
    expect(lines.join("")).not.toContain(owner.token);
  });

  it("blanks api_key, secret and similar parameters on API routes, and the Authorization header", async () => {
    const key = (
      await studio.app.inject({ method: "POST", url: "/api/api-keys", headers: owner.auth, payload: { name: "log" } })
    ).json().data.key as string;
    const response = await fetch(`http://${base}/api/workflows?api_key=${key}&client_secret=hush-hush&limit=5`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(422);
    expect(loggedUrls()).toContain("/api/workflows?api_key=[redacted]&client_secret=[redacted]&limit=5");
    const all = lines.join("");
    expect(all).not.toContain(key);
    expect(all).not.toContain("hush-hush");
    expect(all).not.toContain(owner.token);
  });
});
