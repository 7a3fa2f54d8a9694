// The import sandbox's contract: where an imported repository's Python runs (install, inspect,
// run). Two runtimes implement it: Docker (the sandbox, with the seed's controls) and a plain
// subprocess (tests and Docker-less machines; not a sandbox). Callers build the command with the
// paths as the sandbox sees them (`paths`) and never learn which runtime they have.

/** Which step a command belongs to: it decides the network (install bridge, inspect none, run configured). */
export type SandboxPhase = "install" | "inspect" | "run";

export interface SandboxPaths {
  /** The job directory as the command sees it (read-write; the source is `<job>/src`, the venv `<job>/venv`). */
  job: string;
  /** runner.py as the command sees it (read-only). */
  runner: string;
  /** pip's cache shared between imports, as the command sees it (read-write). */
  pipCache: string;
  /** A directory of wheels to install from without an index (STUDIO_IMPORT_WHEELS), or null. */
  wheels: string | null;
  /** The interpreter that makes the venv (`python3` in the image; configurable for subprocess). */
  basePython: string;
}

export interface SandboxCommand {
  phase: SandboxPhase;
  /** The job's directory on this machine (what is mounted read-write). */
  jobDir: string;
  /** Program and arguments, with paths as `paths` gives them. */
  argv: string[];
  /** The whole environment the command gets (nothing of the server's is added). */
  env: Record<string, string>;
  /** Working directory as the command sees it (default: paths.job). */
  cwd?: string;
  /** Ends the command from outside; its result then says `timedOut`. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each stdout line without its newline, as it arrives (a partial last line at the end). */
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
}

export interface SandboxResult {
  /** The process's exit code; 137 after the out-of-memory killer or a SIGKILL; null when it never started. */
  exitCode: number | null;
  timedOut: boolean;
  /** The command was stopped through `signal`. */
  aborted: boolean;
  /** The kernel's out-of-memory killer ended it (Docker reports it; the subprocess runtime cannot tell). */
  outOfMemory: boolean;
}

export interface ImportSandbox {
  readonly kind: "docker" | "subprocess";
  /** Paths as commands in this sandbox see them, for a job directory on this machine. */
  paths(jobDir: string): SandboxPaths;
  exec(command: SandboxCommand): Promise<SandboxResult>;
}

/**
 * Why a sandboxed command ended from outside, as the run's error says it:
 * `Sandbox stopped (time limit (12s))`, `Sandbox stopped (out of memory (exit 137))`.
 */
export function stopReason(result: SandboxResult, timeoutMs: number): string | null {
  // A cancel is the run's own ending (cancelled), not the sandbox being stopped.
  if (result.aborted) return null;
  if (result.timedOut) return `Sandbox stopped (time limit (${Math.round(timeoutMs / 1000)}s))`;
  if (result.outOfMemory || result.exitCode === 137) return "Sandbox stopped (out of memory (exit 137))";
  return null;
}
