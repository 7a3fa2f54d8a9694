import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ImportJob, MAX_LOG_LINES, newImportJob } from "../../models/import-job.model.js";
import { ImportJobRepository } from "../../repositories/import-job.repository.js";
import { JobLog } from "./job-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function newJob(): Promise<{ jobs: ImportJobRepository; id: string }> {
  const dir = mkdtempSync(join(tmpdir(), "superstep-job-log-"));
  dirs.push(dir);
  const jobs = new ImportJobRepository(dir);
  const job: ImportJob = {
    ...newImportJob("job-1", "u", { kind: "zip", file_name: "a.zip", bytes: 1 }),
    step: "install",
  };
  await jobs.create(job);
  return { jobs, id: job.id };
}

describe("job log", () => {
  it("writes every line in order, in few writes", async () => {
    const { jobs, id } = await newJob();
    const log = new JobLog(jobs, id);
    for (let i = 0; i < 300; i++) log.add("install", `line ${i}`);
    await log.flush();
    const stored = await jobs.get(id);
    expect(stored?.logs.map((l) => l.line)).toEqual(Array.from({ length: 300 }, (_, i) => `line ${i}`));
    expect(stored?.logs.every((l) => l.step === "install")).toBe(true);
  });

  it(`keeps ${MAX_LOG_LINES} lines, the last one counting those not kept`, async () => {
    const { jobs, id } = await newJob();
    const log = new JobLog(jobs, id);
    for (let i = 0; i < MAX_LOG_LINES + 10; i++) log.add("install", `line ${i}`);
    await log.flush();
    const logs = (await jobs.get(id))?.logs ?? [];
    expect(logs).toHaveLength(MAX_LOG_LINES);
    expect(logs[MAX_LOG_LINES - 2]?.line).toBe(`line ${MAX_LOG_LINES - 2}`);
    expect(logs.at(-1)?.line).toBe(`… 11 more log lines not kept (a job keeps ${MAX_LOG_LINES})`);
  });
});
