// Import jobs live on the file system, not in the database: each is a directory
// STUDIO_IMPORT_DIR/<job_id>/ with its job.json beside the source it holds, so that removing the
// directory removes everything. Writes go to a temporary file renamed over job.json, so a crash
// never leaves half a file; writes to one job are applied one after the other.
import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ImportJob } from "../models/import-job.model.js";

const JOB_FILE = "job.json";
const ID = /^[A-Za-z0-9-]{1,64}$/;

export class ImportJobRepository {
  readonly #dir: string;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The job's directory; ids come from us, but a request names one too: only plain ids map to a path. */
  dirOf(id: string): string {
    if (!ID.test(id)) throw new Error(`not an import job id: ${id}`);
    return join(this.#dir, id);
  }

  async create(job: ImportJob): Promise<void> {
    await mkdir(this.dirOf(job.id), { recursive: true });
    await this.#write(job);
  }

  async get(id: string): Promise<ImportJob | undefined> {
    if (!ID.test(id)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.dirOf(id), JOB_FILE), "utf8")) as ImportJob;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  /** Every readable job, newest first; directories without a readable job.json are listed apart. */
  async list(): Promise<{ jobs: ImportJob[]; unreadable: { id: string; modifiedMs: number }[] }> {
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { jobs: [], unreadable: [] };
      throw error;
    }
    const jobs: ImportJob[] = [];
    const unreadable: { id: string; modifiedMs: number }[] = [];
    for (const name of names.filter((n) => ID.test(n))) {
      const job = await this.get(name);
      if (job) jobs.push(job);
      else {
        const info = await stat(join(this.#dir, name)).catch(() => null);
        if (info?.isDirectory()) unreadable.push({ id: name, modifiedMs: info.mtimeMs });
      }
    }
    jobs.sort((a, b) => b.created_at.localeCompare(a.created_at));
    return { jobs, unreadable };
  }

  /** Applies `change` to the stored job and writes it back; returns the new job. */
  update(id: string, change: (job: ImportJob) => ImportJob | undefined): Promise<ImportJob | undefined> {
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const job = await this.get(id);
        if (!job) return undefined;
        const changed = change(structuredClone(job));
        if (!changed) return job;
        changed.updated_at = new Date().toISOString();
        await this.#write(changed);
        return changed;
      });
    this.#queues.set(id, next);
    void next.finally(() => {
      if (this.#queues.get(id) === next) this.#queues.delete(id);
    });
    return next;
  }

  async remove(id: string): Promise<void> {
    await rm(this.dirOf(id), { recursive: true, force: true });
  }

  async #write(job: ImportJob): Promise<void> {
    const dir = this.dirOf(job.id);
    // A fresh name, created exclusively: the directory is also the sandbox's, and a link planted
    // under a predictable name would otherwise be written through.
    const temporary = join(dir, `${JOB_FILE}.${randomUUID()}.tmp`);
    await writeFile(temporary, JSON.stringify(job, null, 2), { flag: "wx" });
    await rename(temporary, join(dir, JOB_FILE));
  }
}
