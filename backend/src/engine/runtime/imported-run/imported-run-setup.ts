// What imported runs need besides the engine settings: the import settings, where a job's code is,
// and (for tests) the sandbox and the environment the declared names are read from.
import type { ImportConfig } from "../../../core/config.js";
import type { ImportSandbox } from "../../sandbox/import-sandbox.js";

/** Where an import job's files are on this machine: its directory and the project root in it. */
export interface ImportedSource {
  jobDir: string;
  root: string;
}

export interface ImportedRunSetup {
  config: ImportConfig;
  /** The job's directory and project root (read from its job.json by the caller). */
  sourceOf(jobId: string): Promise<ImportedSource>;
  /** The sandbox (default: the configured runtime). */
  sandbox?: ImportSandbox;
  /** The server environment the declared names are taken from (default: process.env). */
  serverEnv?: NodeJS.ProcessEnv;
}
