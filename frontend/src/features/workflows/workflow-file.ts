// Workflow files: what export writes and what import accepts. The server has the last word on
// whether a document is a workflow (its validation answer); this only reads the file.
import { WORKFLOW_NAME_MAX, type WorkflowDocument } from "@/lib/api";

/** Larger files are refused before reading: the server's body limit is far below (2 MB by default). */
export const IMPORT_FILE_MAX_BYTES = 64 * 1024 * 1024;

export type ParsedFile = { ok: true; document: unknown } | { ok: false; reason: "notJson" | "notWorkflow" };

/**
 * Reads a file's text as a workflow document. A file holding the API's workflow view
 * ({"id", "name", "document": {…}}, with or without the {"data": …} envelope) gives its document.
 */
export function parseWorkflowFile(text: string): ParsedFile {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return { ok: false, reason: "notJson" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, reason: "notWorkflow" };
  let record = value as Record<string, unknown>;
  if (isRecord(record.data) && !("nodes" in record)) record = record.data;
  if (isRecord(record.document) && !("nodes" in record)) record = record.document;
  return { ok: true, document: record };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The text of an exported file: the document exactly as stored, indented for people and diffs. */
export function workflowFileText(document: WorkflowDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** A file name from a workflow's name: characters no file system accepts are replaced, length capped. */
export function workflowFileName(name: string): string {
  const cleaned = [...name.normalize("NFC")]
    .map((char) => (/[<>:"/\\|?*]/.test(char) || char.charCodeAt(0) < 0x20 ? "-" : char))
    .join("")
    .replace(/\s+/g, " ")
    .replace(/^[\s.-]+|[\s.-]+$/g, "");
  const short = [...cleaned].slice(0, 100).join("").trim();
  return `${short || "workflow"}.json`;
}

export type NameProblem = "workflows.name.required" | "workflows.name.tooLong";

/** The server's rule for a name (1–200 characters after trimming, counted as it counts them). */
export function checkWorkflowName(name: string): NameProblem | null {
  const trimmed = name.trim();
  if (trimmed === "") return "workflows.name.required";
  if (trimmed.length > WORKFLOW_NAME_MAX) return "workflows.name.tooLong";
  return null;
}

/** `name` cut to fit the name limit once wrapped by `wrap` (e.g. "Copy of …"), without splitting a character. */
export function fitName(name: string, wrap: (name: string) => string): string {
  const chars = [...name.trim()];
  const whole = wrap(chars.join(""));
  if (whole.length <= WORKFLOW_NAME_MAX) return whole;
  let length = chars.length;
  const cut = (count: number) => wrap(`${chars.slice(0, count).join("").trimEnd()}…`);
  while (length > 0 && cut(length).length > WORKFLOW_NAME_MAX) length--;
  return cut(length);
}
