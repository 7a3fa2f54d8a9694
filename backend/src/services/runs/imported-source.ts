// Where an imported workflow's code is on this machine: the import job's directory and the project
// root in it, as the download step left it (<job>/src, its sub-directory for a GitHub source with
// one, or a zip's single top folder: job.json's source_root, or derived from its source for a job
// written before it had one). Read from job.json, so a job that is gone is a clear error.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../../core/errors.js";
import { insidePath } from "../../engine/repo_import/graph-discovery.js";
import type { ImportedSource } from "../../engine/runtime/imported-run/imported-run-setup.js";
import type { ImportJobRepository } from "../../repositories/import-job.repository.js";

export function importedSourceOf(jobs: Pick<ImportJobRepository, "get" | "dirOf">) {
  return async (jobId: string, ownerId: string): Promise<ImportedSource> => {
    const job = await jobs.get(jobId);
    // Another user's job is as good as gone: a document naming it (written by hand, say) must not
    // run that user's code.
    if (!job || job.owner_id !== ownerId)
      throw new AppError(
        "IMPORTED_GRAPH_LOAD_FAILED",
        { kind: "job_missing", job_id: jobId },
        `The import job ${jobId} this workflow was made from is gone; import the repository again.`,
      );
    const jobDir = jobs.dirOf(jobId);
    const src = join(jobDir, "src");
    // The download step records the root (relative to the job dir); only a path inside src/ is taken.
    const recorded = job.source_root ? insidePath(job.source_root) : null;
    if (recorded === "src" || recorded?.startsWith("src/")) return { jobDir, root: join(jobDir, recorded) };
    if (job.source.kind === "github") return { jobDir, root: job.source.subdir ? join(src, job.source.subdir) : src };
    // A "Download ZIP" archive holds one folder (repo-main/): the project is in it.
    const entries = (await readdir(src, { withFileTypes: true })).filter((entry) => entry.name !== "__MACOSX");
    const [only] = entries;
    return { jobDir, root: entries.length === 1 && only?.isDirectory() ? join(src, only.name) : src };
  };
}
