// The exit codes of every `superstep` command: one table, the same for all of them (README.md and
// docs/*/runtime.md list it; a docs test keeps them in step). `validate` and `run` agree: a
// document or input that is not valid is 1 for both.
import { AppError } from "../core/errors.js";

export const EXIT = {
  /** Done: the workflow is valid, the run ended ok, the command did its work. */
  OK: 0,
  /** The workflow, its input or a Human answer is not valid. */
  INVALID: 1,
  /** Bad arguments, a file that cannot be read, JSON that does not parse, a bad setting, a run
   * that cannot be continued or answered (unknown id, not recorded, not paused, not waiting). */
  USAGE: 2,
  /** The run waits for a person (Human node) or is paused (one-step mode). */
  WAITING: 3,
  /** The run ended without success: error, cancelled, timeout or expired. */
  RUN_FAILED: 4,
  /** The command could not do its work for another reason: the port is taken, the database does
   * not answer, credentials could not be re-encrypted, an unexpected error. */
  FAILED: 5,
  /** Stopped at a question with Ctrl+C or Ctrl+D. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** One line per code, for `superstep help`. */
export const EXIT_SUMMARY: readonly [ExitCode, string][] = [
  [EXIT.OK, "success: valid, the run ended ok, done"],
  [EXIT.INVALID, "the workflow, its input or an answer is not valid"],
  [EXIT.USAGE, "usage: bad arguments, unreadable file, bad JSON, bad setting, a run that cannot be continued"],
  [EXIT.WAITING, "the run waits for a person or is paused"],
  [EXIT.RUN_FAILED, "the run ended without success (error, cancelled, timeout, expired)"],
  [EXIT.FAILED, "the command failed for another reason (port taken, database down, …)"],
  [EXIT.INTERRUPTED, "stopped at a question (Ctrl+C, Ctrl+D)"],
];

/** A run's status after a turn, as an exit code. */
export function exitForRunStatus(status: string): ExitCode {
  if (status === "ok") return EXIT.OK;
  if (status === "waiting" || status === "paused") return EXIT.WAITING;
  return EXIT.RUN_FAILED;
}

/** An error a command reports in one line, exiting with its code. */
export class CommandError extends Error {
  readonly exitCode: ExitCode;

  constructor(exitCode: ExitCode, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Wrong arguments, an unreadable file, JSON that does not parse: exit 2. */
export class UsageError extends CommandError {
  constructor(message: string) {
    super(EXIT.USAGE, message);
  }
}

/** The exit code for an error no command handled itself. */
export function exitForError(error: unknown): ExitCode {
  if (error instanceof CommandError) return error.exitCode;
  if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))
    return EXIT.USAGE;
  if (error instanceof AppError) {
    switch (error.code) {
      case "CONFIG_INVALID":
      case "RUN_NOT_FOUND":
      case "RUN_NOT_PAUSED":
      case "RUN_NOT_WAITING":
        return EXIT.USAGE;
      case "WORKFLOW_INVALID":
      case "RUN_INPUT_INVALID":
      case "HUMAN_INPUT_INVALID":
        return EXIT.INVALID;
      case "HUMAN_WAIT_EXPIRED":
        return EXIT.RUN_FAILED;
    }
  }
  return EXIT.FAILED;
}
