// What to type to go on with a run that paused or waits for a person: the exact command, for the
// closing lines of `superstep run` (and its JSON summary).
import type { HumanRequest } from "../engine/nodes/human.node.js";

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An answer of the right shape for a form, to edit: the first option, false, 0 or "". */
export function exampleAnswer(request: HumanRequest): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  for (const field of request.fields) {
    answer[field.name] =
      field.type === "number"
        ? 0
        : field.type === "boolean"
          ? false
          : field.type === "select"
            ? (field.options?.[0] ?? "")
            : "";
  }
  return answer;
}

/** The form's fields in one line: `approved (boolean, required), note (string)`. */
export function describeForm(request: HumanRequest): string {
  if (request.fields.length === 0) return "no fields: answer {}";
  return request.fields
    .map((f) => {
      const type =
        f.type === "select" && f.options ? `one of ${f.options.map((o) => JSON.stringify(o)).join(", ")}` : f.type;
      return `${f.name} (${type}${f.required ? ", required" : ""})`;
    })
    .join(", ");
}

export interface CommandContext {
  /** Reproduce --json in the printed command. */
  json: boolean;
  /** The environment the command runs in: where the studio's database is matters. */
  env: NodeJS.ProcessEnv;
}

/** The settings that say where the run is, as a prefix (never DATABASE_URL: it holds a password). */
function prefix(env: NodeJS.ProcessEnv): string {
  if (env.DATABASE_URL || !env.STUDIO_DATA_DIR) return "";
  return `STUDIO_DATA_DIR=${shellQuote(env.STUDIO_DATA_DIR)} `;
}

export function continueCommand(runId: string, context: CommandContext): string {
  return `${prefix(context.env)}superstep run --continue ${shellQuote(runId)}${context.json ? " --json" : ""}`;
}

export function resumeCommand(runId: string, request: HumanRequest, context: CommandContext): string {
  const answer = shellQuote(JSON.stringify(exampleAnswer(request)));
  return `${prefix(context.env)}superstep run --resume ${shellQuote(runId)} --input ${answer}${context.json ? " --json" : ""}`;
}
