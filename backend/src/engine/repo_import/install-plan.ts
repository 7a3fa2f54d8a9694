// The install step's commands and how to read pip's answer, without running anything: a venv made
// with the sandbox's base interpreter, then its pip installing the project (`-e` for a pyproject or
// setup.py, `-r` for requirements.txt) plus langgraph and python-dotenv, from the configured wheel
// directory or index. pip's output decides what a failure was: packaging alone (then the
// pyproject's own dependency list is installed instead) or a requirement no index has.
import type { SandboxPaths } from "../sandbox/import-sandbox.js";
import type { ProjectKind } from "./graph-discovery.js";

/** Always installed beside the project: the runner needs langgraph, and loads .env with python-dotenv. */
export const ALWAYS_INSTALLED = ["langgraph", "python-dotenv"] as const;

export interface InstallSource {
  paths: SandboxPaths;
  /** The project root as the sandbox sees it (`<job>/src`, or a sub-directory of it). */
  root: string;
  kind: ProjectKind;
  /** STUDIO_IMPORT_INDEX_URL; unused when a wheel directory is set (installs are then offline). */
  indexUrl: string | null;
}

export function venvPython(paths: SandboxPaths): string {
  return `${paths.job}/venv/bin/python`;
}

export function venvCommand(paths: SandboxPaths): string[] {
  return [paths.basePython, "-m", "venv", `${paths.job}/venv`];
}

function indexArguments(source: InstallSource): string[] {
  if (source.paths.wheels) return ["--no-index", "--find-links", source.paths.wheels];
  if (source.indexUrl) return ["--index-url", source.indexUrl];
  return [];
}

function pipInstall(source: InstallSource, targets: string[]): string[] {
  return [venvPython(source.paths), "-m", "pip", "install", ...indexArguments(source), ...targets, ...ALWAYS_INSTALLED];
}

/** pip install of the project as its kind says. */
export function projectInstallCommand(source: InstallSource): string[] {
  switch (source.kind) {
    case "pyproject":
    case "setup.py":
      return pipInstall(source, ["-e", source.root]);
    case "requirements":
      return pipInstall(source, ["-r", `${source.root}/requirements.txt`]);
    case "none":
      return pipInstall(source, []);
  }
}

/**
 * pip install of a pyproject's `[project] dependencies` instead of the project itself. Entries that
 * look like options are left out: a dependency list names packages, never pip's flags.
 */
export function dependenciesInstallCommand(source: InstallSource, dependencies: readonly string[]): string[] {
  return pipInstall(
    source,
    dependencies.filter((d) => d.trim() !== "" && !d.trim().startsWith("-")),
  );
}

// setuptools' automatic discovery refusing a flat layout, and the ways pip reports a build backend
// that could not prepare the editable install (its metadata, its build requirements).
const PACKAGING_FAILURES = [
  /Multiple top-level (packages|modules) discovered in a flat-layout/i,
  /error: metadata-generation-failed/i,
  /Getting requirements to build (editable|wheel) did not run successfully/i,
  /Preparing (editable )?metadata \((pyproject\.toml|setup\.py)\) did not run successfully/i,
  /pip subprocess to install build dependencies did not run successfully/i,
  /does not appear to be a Python project/i,
  /build backend is missing the 'build_editable' hook/i,
  /package directory '[^']*' does not exist/i,
];

/** Whether pip failed while packaging the project itself (not while resolving its requirements). */
export function isPackagingFailure(lines: readonly string[]): boolean {
  return lines.some((line) => PACKAGING_FAILURES.some((pattern) => pattern.test(line)));
}

const MISSING = [
  /No matching distribution found for\s+(\S+)/i,
  /Could not find a version that satisfies the requirement\s+(\S+)/i,
];

/** The requirement no index had, as pip names it (`foo==9.9.9`), and its package name (`foo`). */
export function missingRequirement(lines: readonly string[]): { package: string; requirement: string } | null {
  for (const pattern of MISSING) {
    for (const line of lines) {
      const match = pattern.exec(line);
      if (!match) continue;
      const requirement = (match[1] as string).replace(/[),;]+$/, "");
      const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(requirement)?.[0] ?? requirement;
      return { package: name, requirement };
    }
  }
  return null;
}
