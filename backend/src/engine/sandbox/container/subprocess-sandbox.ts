// The subprocess runtime of the import sandbox (STUDIO_IMPORT_RUNTIME=subprocess): the command runs
// as a child of the server, as the same OS user, in its own process group so that a time limit
// stops everything it started. It is not a sandbox: no file system, network, memory or process
// limits. It exists for tests and for machines without Docker, and is documented as such.
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AppError } from "../../../core/errors.js";
import type { ImportSandbox, SandboxCommand, SandboxPaths, SandboxResult } from "../import-sandbox.js";
import { runChildLines } from "./child-lines.js";

export interface SubprocessSandboxOptions {
  /** runner.py on this machine. */
  runnerPath: string;
  /** The import dir: pip's shared cache is kept in it. */
  importDir: string;
  wheelsDir: string | null;
  /** The interpreter venvs are made with (STUDIO_IMPORT_PYTHON). */
  python: string;
}

export class SubprocessSandbox implements ImportSandbox {
  readonly kind = "subprocess" as const;
  readonly #options: SubprocessSandboxOptions;

  constructor(options: SubprocessSandboxOptions) {
    this.#options = options;
  }

  paths(jobDir: string): SandboxPaths {
    return {
      job: jobDir,
      runner: this.#options.runnerPath,
      pipCache: join(this.#options.importDir, ".pip-cache"),
      wheels: this.#options.wheelsDir,
      basePython: this.#options.python,
    };
  }

  async exec(command: SandboxCommand): Promise<SandboxResult> {
    const [file, ...args] = command.argv;
    if (!file) throw new AppError("INTERNAL", { reason: "a sandbox command needs a program" });
    await mkdir(join(command.jobDir, "home"), { recursive: true });
    const result = await runChildLines({
      file,
      args,
      // The caller's environment, and the server's PATH so that a bare interpreter name is found.
      env: { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", ...command.env },
      cwd: command.cwd ?? command.jobDir,
      detached: true,
      timeoutMs: command.timeoutMs,
      signal: command.signal,
      onStdoutLine: command.onStdoutLine,
      onStderrLine: command.onStderrLine,
    });
    if (result.spawnError && result.exitCode === null) {
      command.onStderrLine?.(`could not start ${file}: ${result.spawnError.message}`);
      throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", {
        reason: `${file} could not be started (${(result.spawnError as NodeJS.ErrnoException).code ?? result.spawnError.message})`,
      });
    }
    const { spawnError: _ignored, ...rest } = result;
    return rest;
  }
}

/** The directory runner.py sits in (the Docker runtime mounts it read-only). */
export function runnerDir(runnerPath: string): string {
  return dirname(runnerPath);
}
