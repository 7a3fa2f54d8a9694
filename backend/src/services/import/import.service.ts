// Import jobs: a request names a source, the job is written (job.json) and answered at once, and
// its steps run in this process — download (clone or unzip, size check, graph discovery), then
// install, check and ready. Install, check and ready need the sandbox, which is not built yet:
// they are recorded as skipped, so a job ends once its source is on disk and its graphs are known.
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Actor, assertOwned } from "../../core/authz.js";
import type { ImportConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import type { Logger } from "../../core/logging.js";
import { parseGithubSource } from "../../engine/repo_import/github-source.js";
import { discoverGraphs } from "../../engine/repo_import/graph-discovery.js";
import { CLONE_TIMEOUT_MS, downloadSource, type SourceRequest } from "../../engine/repo_import/import-source.js";
import {
  IMPORT_STEPS,
  type ImportJob,
  type ImportSourceView,
  type ImportStepName,
  MAX_LOG_LINES,
} from "../../models/import-job.model.js";
import type { ImportJobRepository } from "../../repositories/import-job.repository.js";

export interface GithubImportInput {
  url: string;
  branch?: string | null;
  subdir?: string | null;
}

const INTERRUPTED_LINE = "Import interrupted by a restart";
/** Imports one user may have uploading or running at once: each holds a clone or an unzip, and later an install. */
export const MAX_IMPORTS_PER_USER = 3;
const NOT_BUILT = "not run: installing and inspecting in the sandbox is not built in this version";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function errorView(error: unknown): NonNullable<ImportJob["error"]> {
  const appError = error instanceof AppError ? error : new AppError("IMPORT_FAILED");
  return { code: appError.code, message: appError.message, details: appError.details };
}

export class ImportService {
  readonly #config: ImportConfig;
  readonly #jobs: ImportJobRepository;
  readonly #logger: Logger;
  /** Jobs whose steps run in this process now. */
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Per user: imports being uploaded or running in this process. */
  readonly #active = new Map<string, number>();

  constructor(deps: { config: ImportConfig; jobs: ImportJobRepository; logger: Logger }) {
    this.#config = deps.config;
    this.#jobs = deps.jobs;
    this.#logger = deps.logger;
  }

  /** At start: a job left running by a process that is gone will never finish; say so on it. */
  async recover(): Promise<number> {
    const { jobs } = await this.#jobs.list();
    let marked = 0;
    for (const job of jobs) {
      if (job.status !== "running" || this.#running.has(job.id)) continue;
      // The same pid as ours, yet not ours: an earlier process of this server (pid 1 in a container).
      if (isAlive(job.pid) && job.pid !== process.pid) continue;
      await this.#jobs.update(job.id, (stored) => {
        if (stored.status !== "running") return undefined;
        return this.#failed(stored, new AppError("IMPORT_INTERRUPTED"), "interrupted", INTERRUPTED_LINE);
      });
      marked += 1;
    }
    if (marked > 0) this.#logger.warn({ jobs: marked }, "import jobs interrupted by a restart marked as such");
    return marked;
  }

  async createFromGithub(actor: Actor, input: GithubImportInput): Promise<ImportJob> {
    const source = parseGithubSource(input);
    const release = this.#reserve(actor);
    try {
      await this.#sweep();
      const job = await this.#newJob(actor, {
        kind: "github",
        url: `https://github.com/${source.owner}/${source.repo}`,
        branch: source.branch,
        subdir: source.subdir,
      });
      this.#start(job, { kind: "github", source }, release);
      return job;
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Saves the upload in the job's directory, counting its bytes (over STUDIO_IMPORT_MAX_BYTES the
   * request is refused and nothing is kept), then unpacks it in the job's download step.
   */
  async createFromZip(actor: Actor, upload: { fileName: string; stream: Readable }): Promise<ImportJob> {
    let release: () => void;
    try {
      release = this.#reserve(actor);
    } catch (error) {
      upload.stream.resume();
      throw error;
    }
    try {
      return await this.#receiveZip(actor, upload, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  async #receiveZip(
    actor: Actor,
    upload: { fileName: string; stream: Readable },
    release: () => void,
  ): Promise<ImportJob> {
    await this.#sweep();
    const fileName = upload.fileName.replace(/[^\w .()+-]/g, "_").slice(0, 200) || "upload.zip";
    const job = await this.#newJob(actor, { kind: "zip", file_name: fileName, bytes: 0 });
    const zipPath = join(this.#jobs.dirOf(job.id), "upload.zip");
    let bytes = 0;
    const max = this.#config.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback(
          bytes > max
            ? new AppError("IMPORT_SOURCE_TOO_LARGE", {
                max_bytes: max,
                reason: "the upload is larger than STUDIO_IMPORT_MAX_BYTES",
              })
            : null,
          chunk,
        );
      },
    });
    try {
      await pipeline(upload.stream, counter, createWriteStream(zipPath, { flags: "wx" }));
    } catch (error) {
      upload.stream.resume();
      await this.#jobs.remove(job.id);
      throw error;
    }
    const saved = await this.#jobs.update(job.id, (stored) => {
      stored.source = { kind: "zip", file_name: fileName, bytes };
      return stored;
    });
    this.#start(saved ?? job, { kind: "zip", zipPath }, release);
    return saved ?? job;
  }

  async get(actor: Actor, id: string): Promise<ImportJob> {
    return assertOwned(await this.#jobs.get(id), actor, "IMPORT_NOT_FOUND");
  }

  async list(actor: Actor): Promise<ImportJob[]> {
    const { jobs } = await this.#jobs.list();
    return jobs.filter((job) => job.owner_id === actor.userId);
  }

  /** Resolves once every job running in this process has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }

  /** Stops the jobs running here; each is marked interrupted. */
  async close(): Promise<void> {
    for (const { controller } of this.#running.values()) controller.abort();
    await this.idle();
  }

  async #newJob(actor: Actor, source: ImportSourceView): Promise<ImportJob> {
    const now = new Date().toISOString();
    const job: ImportJob = {
      id: randomUUID(),
      owner_id: actor.userId,
      source,
      status: "running",
      step: "download",
      steps: IMPORT_STEPS.map((name) => ({ name, status: "pending", started_at: null, finished_at: null })),
      logs: [],
      graphs: [],
      env_names: [],
      project: null,
      source_bytes: null,
      error: null,
      created_at: now,
      updated_at: now,
      pid: process.pid,
      keep: false,
    };
    await this.#jobs.create(job);
    return job;
  }

  /** Takes one of the user's import slots; the function returned gives it back (once). */
  #reserve(actor: Actor): () => void {
    const active = this.#active.get(actor.userId) ?? 0;
    if (active >= MAX_IMPORTS_PER_USER)
      throw new AppError("IMPORT_LIMIT_REACHED", { limit: MAX_IMPORTS_PER_USER, retry_after_seconds: 10 });
    this.#active.set(actor.userId, active + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#active.get(actor.userId) ?? 1) - 1;
      if (left <= 0) this.#active.delete(actor.userId);
      else this.#active.set(actor.userId, left);
    };
  }

  #start(job: ImportJob, request: SourceRequest, release: () => void): void {
    const controller = new AbortController();
    const done = this.#run(job.id, request, controller.signal)
      .catch((error) => this.#logger.error({ err: error, importId: job.id }, "import job could not be recorded"))
      .finally(() => {
        this.#running.delete(job.id);
        release();
      });
    this.#running.set(job.id, { controller, done });
  }

  async #run(id: string, request: SourceRequest, signal: AbortSignal): Promise<void> {
    const log = (step: ImportStepName, line: string) =>
      void this.#jobs.update(id, (job) => {
        if (job.logs.length < MAX_LOG_LINES) job.logs.push({ ts: new Date().toISOString(), step, line });
        return job;
      });
    await this.#enterStep(id, "download");
    try {
      const downloaded = await downloadSource(request, {
        jobDir: this.#jobs.dirOf(id),
        maxBytes: this.#config.maxBytes,
        cloneTimeoutMs: CLONE_TIMEOUT_MS,
        signal,
        onLine: (line) => log("download", line),
        gitMirror: this.#config.testGitMirror,
      });
      if (signal.aborted) throw new AppError("IMPORT_INTERRUPTED");
      const discovery = await discoverGraphs(downloaded.root);
      log(
        "download",
        `found ${discovery.graphs.length} graph(s): ${discovery.graphs.map((g) => `${g.id} (${g.spec})`).join(", ")}`,
      );
      if (discovery.envNames.length > 0)
        log("download", `environment names declared: ${discovery.envNames.join(", ")}`);
      log("download", `project: ${discovery.project.kind}`);
      await this.#jobs.update(id, (job) => {
        job.graphs = discovery.graphs;
        job.env_names = discovery.envNames;
        job.project = discovery.project;
        job.source_bytes = downloaded.bytes;
        this.#finishStep(job, "download", "done");
        for (const step of IMPORT_STEPS.slice(1)) {
          this.#finishStep(job, step, "skipped");
          job.logs.push({ ts: new Date().toISOString(), step, line: NOT_BUILT });
        }
        job.step = "download";
        job.status = "succeeded";
        return job;
      });
    } catch (error) {
      const interrupted = signal.aborted;
      if (!(error instanceof AppError)) this.#logger.error({ err: error, importId: id }, "import job failed");
      await rm(join(this.#jobs.dirOf(id), "src"), { recursive: true, force: true }).catch(() => undefined);
      await this.#jobs.update(id, (job) =>
        interrupted
          ? this.#failed(job, new AppError("IMPORT_INTERRUPTED"), "interrupted", INTERRUPTED_LINE)
          : this.#failed(job, error, "failed", null),
      );
    }
  }

  async #enterStep(id: string, step: ImportStepName): Promise<void> {
    await this.#jobs.update(id, (job) => {
      const entry = job.steps.find((s) => s.name === step);
      if (entry) {
        entry.status = "running";
        entry.started_at = new Date().toISOString();
      }
      job.step = step;
      return job;
    });
  }

  #finishStep(job: ImportJob, step: ImportStepName, status: "done" | "failed" | "skipped"): void {
    const entry = job.steps.find((s) => s.name === step);
    if (!entry) return;
    entry.status = status;
    entry.finished_at = new Date().toISOString();
  }

  #failed(job: ImportJob, error: unknown, status: "failed" | "interrupted", line: string | null): ImportJob {
    const view = errorView(error);
    this.#finishStep(job, job.step, "failed");
    job.status = status;
    job.error = view;
    job.logs.push({ ts: new Date().toISOString(), step: job.step, line: line ?? `${view.code}: ${view.message}` });
    return job;
  }

  /** Before a new import: job directories older than STUDIO_IMPORT_MAX_AGE_HOURS go (kept and running ones stay). */
  async #sweep(): Promise<void> {
    if (this.#config.maxAgeHours === 0) return;
    const cutoff = Date.now() - this.#config.maxAgeHours * 3600 * 1000;
    const { jobs, unreadable } = await this.#jobs.list();
    for (const job of jobs) {
      if (job.keep || this.#running.has(job.id)) continue;
      if (job.status === "running" && isAlive(job.pid) && job.pid !== process.pid) continue;
      if (Date.parse(job.created_at) < cutoff) await this.#jobs.remove(job.id);
    }
    for (const dir of unreadable) if (dir.modifiedMs < cutoff) await this.#jobs.remove(dir.id);
  }
}
