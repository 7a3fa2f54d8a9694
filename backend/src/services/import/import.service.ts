// Import jobs: a request names a source, the job is written (job.json) and answered at once, and
// its steps run in this process — download (clone or unzip, size check, graph discovery), then
// install (venv and pip in the import sandbox), check (runner.py inspect, network none) and ready
// (at least one graph loaded). A workflow is then made from one loaded graph.
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { lstat, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Readable } from "node:stream";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Actor, assertOwned } from "../../core/authz.js";
import type { ImportConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import type { Logger } from "../../core/logging.js";
import { parseGithubSource } from "../../engine/repo_import/github-source.js";
import { discoverGraphs, insidePath } from "../../engine/repo_import/graph-discovery.js";
import { runnerGraphLine } from "../../engine/repo_import/graph-inspection.js";
import { CLONE_TIMEOUT_MS, downloadSource, type SourceRequest } from "../../engine/repo_import/import-source.js";
import { buildImportedWorkflow } from "../../engine/repo_import/imported-workflow.js";
import type { ImportSandbox } from "../../engine/sandbox/import-sandbox.js";
import {
  type ImportJob,
  type ImportSourceView,
  type ImportStepName,
  MAX_LOG_LINES,
  newImportJob,
} from "../../models/import-job.model.js";
import type { ImportJobRepository } from "../../repositories/import-job.repository.js";
import type { WorkflowView } from "../../schemas/workflow.schema.js";
import type { WorkflowService } from "../workflow.service.js";
import { runCheckStep } from "./check-step.js";
import { runInstallStep } from "./install-step.js";
import { JobLog } from "./job-log.js";

export interface GithubImportInput {
  url: string;
  branch?: string | null;
  subdir?: string | null;
}

const INTERRUPTED_LINE = "Import interrupted by a restart";
/** Imports one user may have uploading or running at once: each holds a clone or an unzip, and later an install. */
export const MAX_IMPORTS_PER_USER = 3;
/** Where the check step keeps each graph's full `runner.py inspect` line, in the job directory. */
export const INSPECT_FILE = "inspect.json";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const MAX_SOURCE_FILE_BYTES = 1024 * 1024;

/** A plain file of the repository (never a link, nor under one that leads out of `within`), or null. */
async function readRepositoryFile(path: string, within: string): Promise<string | null> {
  try {
    const info = await lstat(path);
    if (!info.isFile() || info.size > MAX_SOURCE_FILE_BYTES) return null;
    if (!(await realpath(path)).startsWith(`${within}${sep}`)) return null;
    return await readFile(path, "utf8");
  } catch {
    return null;
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

  readonly #sandbox: (config: ImportConfig) => Promise<ImportSandbox>;
  readonly #workflows: WorkflowService;

  constructor(deps: {
    workflows: WorkflowService;
    config: ImportConfig;
    jobs: ImportJobRepository;
    logger: Logger;
    /**
     * The import sandbox's runtime (createImportSandbox, loaded with the first import); asked for
     * per job, so Docker missing fails that job.
     */
    sandbox: (config: ImportConfig) => Promise<ImportSandbox>;
  }) {
    this.#config = deps.config;
    this.#jobs = deps.jobs;
    this.#logger = deps.logger;
    this.#sandbox = deps.sandbox;
    this.#workflows = deps.workflows;
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

  /**
   * A read-only workflow from one graph of a job that is ready; the job is then kept (never
   * cleaned), since the workflow runs the code in its directory.
   */
  async createWorkflow(actor: Actor, id: string, input: { graph_id: string; name?: string }): Promise<WorkflowView> {
    const job = await this.get(actor, id);
    if (job.status !== "succeeded") throw new AppError("IMPORT_NOT_READY", { status: job.status, step: job.step });
    const graph = job.graphs.find((g) => g.id === input.graph_id);
    if (!graph?.inspected?.ok)
      throw new AppError("IMPORT_GRAPH_NOT_FOUND", {
        graph_id: input.graph_id,
        loaded: job.graphs.filter((g) => g.inspected?.ok).map((g) => g.id),
      });
    const jobDir = this.#jobs.dirOf(job.id);
    const stored = await readFile(join(jobDir, INSPECT_FILE), "utf8")
      .then((text) => (JSON.parse(text) as { graphs?: Record<string, unknown> }).graphs?.[graph.id])
      .catch(() => undefined);
    const line = runnerGraphLine.safeParse(stored);
    if (!line.success)
      throw new AppError("IMPORT_GRAPH_NOT_FOUND", { graph_id: input.graph_id, reason: "its inspection is not kept" });
    // job.json and the source sit where the sandbox can write: nothing read here may lead out of src/.
    const relativeRoot = insidePath(job.source_root ?? "src");
    const root = join(jobDir, relativeRoot === "src" || relativeRoot?.startsWith("src/") ? relativeRoot : "src");
    const within = await realpath(join(jobDir, "src")).catch(() => null);
    const sources = new Map<string, string>();
    for (const node of line.data.nodes) {
      const file = node.source ? insidePath(node.source.file) : null;
      if (file === null || within === null || sources.has(file)) continue;
      const text = await readRepositoryFile(join(root, file), within);
      if (text !== null) sources.set(file, text);
    }
    const document = buildImportedWorkflow({
      line: line.data,
      job: { id: job.id, env_names: job.env_names },
      graph: { id: graph.id, spec: graph.spec },
      name: input.name,
      readSource: (file) => sources.get(insidePath(file) ?? "") ?? null,
    });
    await this.#workflows.validate(actor, document);
    const workflow = await this.#workflows.create(actor, document);
    await this.#jobs.update(job.id, (current) => {
      current.keep = true;
      return current;
    });
    return workflow;
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
    const job = newImportJob(randomUUID(), actor.userId, source);
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
    const jobDir = this.#jobs.dirOf(id);
    const log = new JobLog(this.#jobs, id);
    let downloaded = false;
    await this.#enterStep(id, "download");
    try {
      const source = await downloadSource(request, {
        jobDir,
        maxBytes: this.#config.maxBytes,
        cloneTimeoutMs: CLONE_TIMEOUT_MS,
        signal,
        onLine: (line) => log.add("download", line),
        gitMirror: this.#config.testGitMirror,
      });
      if (signal.aborted) throw new AppError("IMPORT_INTERRUPTED");
      const discovery = await discoverGraphs(source.root);
      log.add(
        "download",
        `found ${discovery.graphs.length} graph(s): ${discovery.graphs.map((g) => `${g.id} (${g.spec})`).join(", ")}`,
      );
      if (discovery.envNames.length > 0)
        log.add("download", `environment names declared: ${discovery.envNames.join(", ")}`);
      log.add("download", `project: ${discovery.project.kind}`);
      const sourceRoot = relative(jobDir, source.root).split(sep).join("/");
      await log.flush();
      const job = await this.#jobs.update(id, (stored) => {
        stored.graphs = discovery.graphs.map((graph) => ({ ...graph, inspected: null }));
        stored.env_names = discovery.envNames;
        stored.project = discovery.project;
        stored.source_root = sourceRoot;
        stored.source_bytes = source.bytes;
        this.#finishStep(stored, "download", "done");
        return stored;
      });
      downloaded = true;
      if (!job) throw new AppError("IMPORT_FAILED", { reason: "the job's file is gone" });
      await this.#sandboxSteps(job, sourceRoot, log, signal);
    } catch (error) {
      const interrupted = signal.aborted;
      if (!(error instanceof AppError)) this.#logger.error({ err: error, importId: id }, "import job failed");
      // Nothing of a refused source is kept; after the download the source stays for its log's sake.
      if (!downloaded) await rm(join(jobDir, "src"), { recursive: true, force: true }).catch(() => undefined);
      await log.flush().catch(() => undefined);
      await this.#jobs.update(id, (job) =>
        interrupted
          ? this.#failed(job, new AppError("IMPORT_INTERRUPTED"), "interrupted", INTERRUPTED_LINE)
          : this.#failed(job, error, "failed", null),
      );
    }
  }

  /** install → check → ready, in the import sandbox. */
  async #sandboxSteps(job: ImportJob, sourceRoot: string, log: JobLog, signal: AbortSignal): Promise<void> {
    const jobDir = this.#jobs.dirOf(job.id);
    await this.#enterStep(job.id, "install");
    const sandbox = await this.#sandbox(this.#config);
    const { sandboxEnvironment } = await import("../../engine/sandbox/container/sandbox-env.js");
    const paths = sandbox.paths(jobDir);
    const env = sandboxEnvironment({
      paths,
      declared: job.env_names,
      secrets: this.#config.secrets,
      serverEnv: process.env,
    });
    await runInstallStep({
      sandbox,
      jobDir,
      sourceRoot,
      kind: job.project?.kind ?? "none",
      indexUrl: this.#config.indexUrl,
      // No keys while installing: the repository's build code runs then, with the network on.
      env: sandboxEnvironment({ paths, declared: [], secrets: [], serverEnv: process.env }),
      timeoutMs: this.#config.installTimeoutMs,
      signal,
      log: (line) => log.add("install", line),
    });
    await log.flush();
    await this.#jobs.update(job.id, (stored) => {
      this.#finishStep(stored, "install", "done");
      return stored;
    });

    await this.#enterStep(job.id, "check");
    const checked = await runCheckStep({
      sandbox,
      jobDir,
      sourceRoot,
      graphs: job.graphs,
      env,
      timeoutMs: this.#config.inspectTimeoutMs,
      signal,
      log: (line) => log.add("check", line),
    });
    // Created afresh, never written through: the sandbox could have left a link by that name.
    await rm(join(jobDir, INSPECT_FILE), { force: true, recursive: true });
    await writeFile(join(jobDir, INSPECT_FILE), JSON.stringify({ graphs: checked.lines }), { flag: "wx" });
    await log.flush();
    const loaded = [...checked.inspected.values()].filter((summary) => summary.ok).length;
    await this.#jobs.update(job.id, (stored) => {
      for (const graph of stored.graphs) graph.inspected = checked.inspected.get(graph.id) ?? null;
      if (loaded > 0) this.#finishStep(stored, "check", "done");
      return stored;
    });
    if (loaded === 0)
      throw new AppError("IMPORT_INSPECT_FAILED", {
        graphs: [...checked.inspected.entries()].map(([id, summary]) => ({
          id,
          kind: summary.ok ? null : summary.kind,
          message: summary.ok ? null : summary.message,
        })),
      });

    await this.#enterStep(job.id, "ready");
    await this.#jobs.update(job.id, (stored) => {
      this.#finishStep(stored, "ready", "done");
      if (stored.logs.length < MAX_LOG_LINES)
        stored.logs.push({
          ts: new Date().toISOString(),
          step: "ready",
          line: `ready: ${loaded} of ${stored.graphs.length} graph(s) loaded`,
        });
      stored.status = "succeeded";
      return stored;
    });
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
