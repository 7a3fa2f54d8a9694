// What an invalid JSON edit says, in words a person can act on: the parser's and the schema's
// problems keep their line and column, a file that is not a workflow at all says so once (instead
// of a dozen schema complaints), and an unknown node type names the type it does not know.
import { parse } from "jsonc-parser";
import type { JsonProblem } from "../document";
// The node types the server knows (the document layer keeps this list internal; read it at its source).
import { NODE_TYPES } from "../document/backend-shared";

/** At most this many problems are listed; the rest are counted. */
export const SHOWN_PROBLEMS_MAX = 20;

export interface ExplainedProblem {
  /** The locale key of the message and its values. */
  key: string;
  params: Record<string, string | number>;
  offset: number;
  length: number;
  line: number;
  column: number;
}

function valueAt(root: unknown, path: string): unknown {
  let value = root;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A JSON value that has none of a workflow's parts is "not a workflow", not N schema errors. */
function notAWorkflow(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return true;
  return !("nodes" in value) && !("edges" in value) && !("state" in value);
}

export function explainJsonProblems(text: string, problems: readonly JsonProblem[]): ExplainedProblem[] {
  if (problems.length === 0) return [];
  const where = (p: JsonProblem) => ({ offset: p.offset, length: p.length, line: p.line, column: p.column });
  if (problems[0]?.code === "EDITOR_JSON_SCHEMA") {
    // No syntax errors, so the text is JSON and parses without surprises.
    const value: unknown = parse(text);
    if (notAWorkflow(value)) {
      return [{ key: "editor.json.notWorkflow", params: {}, offset: 0, length: 0, line: 1, column: 1 }];
    }
    return problems.map((p): ExplainedProblem => {
      const type = p.path !== undefined && /^nodes\.\d+\.type$/.test(p.path) ? valueAt(value, p.path) : undefined;
      if (typeof type === "string" && !(NODE_TYPES as readonly string[]).includes(type)) {
        return { key: "editor.json.unknownNodeType", params: { type, line: p.line, column: p.column }, ...where(p) };
      }
      return {
        key: "editor.errors.EDITOR_JSON_SCHEMA",
        params: { line: p.line, column: p.column, path: p.path || "/", detail: p.detail },
        ...where(p),
      };
    });
  }
  return problems.map((p) => ({
    key: `editor.errors.${p.code}`,
    params: { line: p.line, column: p.column, detail: p.detail, max: p.detail.replace(/\D/g, "") },
    ...where(p),
  }));
}
