// A real studio process killed while an import is under way: at the next start the job says
// "Import interrupted by a restart" instead of staying "running" for ever.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, type StudioApi, setUp, until } from "./studio-api.js";
import { assertBuilt, reapStudioProcesses, startStudioProcess } from "./studio-process.js";

const dataDir = mkdtempSync(join(tmpdir(), "superstep-import-restart-"));
afterAll(async () => {
  await reapStudioProcesses();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("an import when its studio is killed", () => {
  it("is marked interrupted by the next start", async () => {
    assertBuilt();
    const env = { STUDIO_DATA_DIR: dataDir, STUDIO_ENABLE_IMPORT: "1" };
    const first = await startStudioProcess(env);
    const api: StudioApi = { base: first.url, token: "" };
    await setUp(api, []);

    // An upload that starts and never ends: the job exists (job.json written) while its zip streams.
    const boundary = "----superstep-restart";
    const upload = request(`${first.url}/api/imports`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${api.token}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
    });
    const ended = new Promise<void>((resolve) => {
      upload.once("error", () => resolve());
      upload.once("response", (response) => {
        response.resume();
        response.once("end", () => resolve());
      });
    });
    upload.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.zip"\r\nContent-Type: application/zip\r\n\r\nPK\u0003\u0004`,
    );
    const importsDir = join(dataDir, "imports");
    const jobId = await until("the job's job.json", async () => {
      const ids = (() => {
        try {
          return readdirSync(importsDir);
        } catch {
          return [];
        }
      })();
      for (const id of ids) {
        try {
          const job = JSON.parse(readFileSync(join(importsDir, id, "job.json"), "utf8"));
          if (job.status === "running") return id;
        } catch {
          // Not written yet.
        }
      }
      return undefined;
    });

    await first.kill();
    await ended;
    const second = await startStudioProcess(env);
    const job = (await call({ ...api, base: second.url }, "GET", `/api/imports/${jobId}`)).body.data;
    expect(job).toMatchObject({
      status: "interrupted",
      error: { code: "IMPORT_INTERRUPTED", message: "Import interrupted by a restart." },
    });
    expect(job.steps[0]).toMatchObject({ name: "download", status: "failed" });
    expect(job.logs.at(-1).line).toBe("Import interrupted by a restart");
    expect(second.output()).toContain("import jobs interrupted by a restart marked as such");
    await second.stop();
  });
});
