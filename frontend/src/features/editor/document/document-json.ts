// The JSON view's text ⇄ document. An edit that is not valid JSON, or not a valid workflow
// document, answers problems with their line and column and leaves the store alone: the last valid
// document is only replaced (by the replace-document command) when the text parses.
import { findNodeAtLocation, type Node, type ParseError, parse, parseTree, printParseErrorCode } from "jsonc-parser";
import { workflowDocument } from "./backend-shared.js";
import type { WorkflowDocument } from "./document-types.js";

/** Longer text is refused before it is parsed (the server's own limit is usually far lower). */
export const MAX_DOCUMENT_CHARS = 20 * 1024 * 1024;

export interface JsonProblem {
  code: "EDITOR_JSON_SYNTAX" | "EDITOR_JSON_SCHEMA" | "EDITOR_DOCUMENT_TOO_LARGE";
  /** What is wrong, in English (the parser's error name, or the schema's message). */
  detail: string;
  /** Where: UTF-16 offset and length in the text, and 1-based line and column. */
  offset: number;
  length: number;
  line: number;
  column: number;
  /** For a schema problem: the path in the document (`nodes.2.type`). */
  path?: string;
}

export type DocumentTextResult = { ok: true; document: WorkflowDocument } | { ok: false; problems: JsonProblem[] };

/** The document as the JSON view shows it. */
export function documentText(document: WorkflowDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Line and column (1-based) of offsets in a text: line starts found once, then a binary search. */
export function lineColumns(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (starts[low] as number) + 1 };
  };
}

/** The text node a schema issue points at: the value at its path, or its nearest existing parent. */
function nodeFor(root: Node | undefined, path: (string | number)[]): Node | undefined {
  if (!root) return undefined;
  for (let depth = path.length; depth >= 0; depth--) {
    const node = findNodeAtLocation(root, path.slice(0, depth));
    if (node) return node;
  }
  return root;
}

export function parseDocumentText(text: string): DocumentTextResult {
  let position: ReturnType<typeof lineColumns> | undefined;
  const at = (offset: number, length: number) => {
    position ??= lineColumns(text);
    return { offset, length, ...position(offset) };
  };
  if (text.length > MAX_DOCUMENT_CHARS) {
    return {
      ok: false,
      problems: [{ code: "EDITOR_DOCUMENT_TOO_LARGE", detail: `over ${MAX_DOCUMENT_CHARS} characters`, ...at(0, 0) }],
    };
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  if (errors.length > 0) {
    return {
      ok: false,
      problems: errors.map((error) => ({
        code: "EDITOR_JSON_SYNTAX",
        detail: printParseErrorCode(error.error),
        ...at(error.offset, error.length),
      })),
    };
  }
  const parsed = workflowDocument.safeParse(value);
  if (parsed.success) return { ok: true, document: parsed.data };
  const root = parseTree(text);
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
      // An unknown key points at the key itself rather than at the object that holds it.
      const key = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
      const keyNode = key !== undefined && root ? findNodeAtLocation(root, [...path, key])?.parent : undefined;
      const node = keyNode ?? nodeFor(root, path);
      return {
        code: "EDITOR_JSON_SCHEMA" as const,
        detail: issue.message,
        path: path.join("."),
        ...at(node?.offset ?? 0, node?.length ?? 0),
      };
    }),
  };
}
