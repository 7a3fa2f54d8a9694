// The install step run through the import sandbox (phase "install"): the venv, then pip with the
// project, every line of both into the job log as it comes. A packaging-only failure of a
// pyproject falls back to its `[project] dependencies`, said in the log; a requirement no index
// has fails naming the package; the whole step has STUDIO_IMPORT_INSTALL_TIMEOUT.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../../core/errors.js";
import type { ProjectKind } from "../../engine/repo_import/graph-discovery.js";
import {
  dependenciesInstallCommand,
  type InstallSource,
  isPackagingFailure,
  missingRequirement,
  projectInstallCommand,
  venvCommand,
} from "../../engine/repo_import/install-plan.js";
import { pyprojectDependencies } from "../../engine/repo_import/pyproject-dependencies.js";
import type { ImportSandbox, SandboxResult } from "../../engine/sandbox/import-sandbox.js";

export interface InstallStepInput {
  sandbox: ImportSandbox;
  jobDir: string;
  /** The project root relative to the job directory (`src/...`). */
  sourceRoot: string;
  kind: ProjectKind;
  indexUrl: string | null;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** Lines of one command kept for reading its failure: pip says why near the end. */
const KEPT_LINES = 4000;

export async function runInstallStep(input: InstallStepInput): Promise<void> {
  const paths = input.sandbox.paths(input.jobDir);
  const source: InstallSource = {
    paths,
    root: `${paths.job}/${input.sourceRoot}`,
    kind: input.kind,
    indexUrl: input.indexUrl,
  };
  const deadline = Date.now() + input.timeoutMs;
  const run = async (argv: string[]) => {
    input.log(`$ ${argv.join(" ")}`);
    const lines: string[] = [];
    const onLine = (line: string) => {
      input.log(line);
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
    };
    const result = await input.sandbox.exec({
      phase: "install",
      jobDir: input.jobDir,
      argv,
      env: input.env,
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal: input.signal,
      onStdoutLine: onLine,
      onStderrLine: onLine,
    });
    ended(result, input.timeoutMs);
    return { result, lines };
  };

  const venv = await run(venvCommand(paths));
  if (venv.result.exitCode !== 0)
    throw new AppError("IMPORT_INSTALL_FAILED", {
      reason: `python -m venv failed (exit code ${venv.result.exitCode})`,
      exit_code: venv.result.exitCode,
    });

  const project = await run(projectInstallCommand(source));
  if (project.result.exitCode === 0) return;
  if (input.kind === "pyproject" && isPackagingFailure(project.lines)) {
    const text = await readFile(join(input.jobDir, input.sourceRoot, "pyproject.toml"), "utf8").catch(() => "");
    const dependencies = pyprojectDependencies(text);
    if (dependencies === null)
      throw new AppError("IMPORT_INSTALL_FAILED", {
        reason:
          "pip install -e failed while packaging the project, and pyproject.toml has no [project] dependencies list to install instead",
        exit_code: project.result.exitCode,
      });
    input.log(
      `pip install -e failed on packaging alone (not on a requirement): installing the pyproject's [project] dependencies instead (${dependencies.length}: ${dependencies.join(", ") || "none"}); the project's own modules load from its source directory`,
    );
    const fallback = await run(dependenciesInstallCommand(source, dependencies));
    if (fallback.result.exitCode === 0) return;
    throw pipFailure(fallback.lines, fallback.result);
  }
  throw pipFailure(project.lines, project.result);
}

function ended(result: SandboxResult, timeoutMs: number): void {
  if (result.aborted) throw new AppError("IMPORT_INTERRUPTED");
  if (result.timedOut)
    throw new AppError("IMPORT_INSTALL_TIMEOUT", {
      timeout_seconds: Math.round(timeoutMs / 1000),
      reason: `installing took longer than ${Math.round(timeoutMs / 1000)}s (STUDIO_IMPORT_INSTALL_TIMEOUT)`,
    });
}

function pipFailure(lines: string[], result: SandboxResult): AppError {
  const missing = missingRequirement(lines);
  if (missing)
    return new AppError(
      "IMPORT_INSTALL_FAILED",
      { ...missing, exit_code: result.exitCode },
      `Installing the repository's packages failed: no package index has ${missing.requirement}.`,
    );
  const reason = [...lines].reverse().find((line) => /^\s*error\b|ERROR:/i.test(line)) ?? lines.at(-1) ?? null;
  return new AppError("IMPORT_INSTALL_FAILED", {
    reason: reason?.trim() ?? `pip exited with code ${result.exitCode}`,
    exit_code: result.exitCode,
    out_of_memory: result.outOfMemory || result.exitCode === 137,
  });
}
