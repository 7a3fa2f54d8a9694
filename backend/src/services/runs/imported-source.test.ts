import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ImportJob, newImportJob } from "../../models/import-job.model.js";
import { ImportJobRepository } from "../../repositories/import-job.repository.js";
import { importedSourceOf } from "./imported-source.js";

const dir = mkdtempSync(join(tmpdir(), "superstep-imported-source-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const jobs = new ImportJobRepository(dir);
const sourceOf = importedSourceOf(jobs);

async function job(id: string, change: Partial<ImportJob>, folders: string[] = []): Promise<void> {
  await jobs.create({
    ...newImportJob(id, "u", { kind: "github", url: "https://github.com/a/b", branch: null, subdir: null }),
    status: "succeeded",
    step: "ready",
    steps: [],
    source_bytes: 1,
    keep: true,
    ...change,
  });
  for (const folder of folders) mkdirSync(join(dir, id, "src", folder), { recursive: true });
}

describe("where an imported workflow's code is", () => {
  it("takes the root the download step recorded", async () => {
    await job("recorded", { source_root: "src/apps/agent" });
    expect(await sourceOf("recorded", "u")).toEqual({
      jobDir: join(dir, "recorded"),
      root: join(dir, "recorded", "src/apps/agent"),
    });
  });

  it("never takes a recorded root outside src/", async () => {
    await job("outside", { source_root: "../elsewhere" });
    expect((await sourceOf("outside", "u")).root).toBe(join(dir, "outside", "src"));
  });

  it("derives it for a job without one: a GitHub sub-directory, or a zip's one top folder", async () => {
    await job("subdir", { source: { kind: "github", url: "https://github.com/a/b", branch: null, subdir: "libs/x" } });
    expect((await sourceOf("subdir", "u")).root).toBe(join(dir, "subdir", "src", "libs/x"));
    await job("zip", { source: { kind: "zip", file_name: "b.zip", bytes: 10 } }, ["b-main", "__MACOSX"]);
    expect((await sourceOf("zip", "u")).root).toBe(join(dir, "zip", "src", "b-main"));
  });

  it("treats another user's job as gone: a document naming it never runs that user's code", async () => {
    await job("theirs", { owner_id: "someone-else" });
    await expect(sourceOf("theirs", "u")).rejects.toMatchObject({
      code: "IMPORTED_GRAPH_LOAD_FAILED",
      details: { kind: "job_missing", job_id: "theirs" },
    });
  });

  it("fails IMPORTED_GRAPH_LOAD_FAILED naming the job when it is gone", async () => {
    await expect(sourceOf("no-such-job", "u")).rejects.toMatchObject({
      code: "IMPORTED_GRAPH_LOAD_FAILED",
      details: { kind: "job_missing", job_id: "no-such-job" },
    });
  });
});
