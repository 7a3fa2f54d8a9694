// Copyable examples of starting a saved workflow from another system (the hook route), with the
// workflow's real input fields and an example value of each field's type.
import type { StateField } from "@/lib/api";

export type HookLanguage = "curl" | "javascript" | "python";

/** How long the example waits for the run's result when asked to (`?wait=`, at most 300 on the server). */
export const HOOK_EXAMPLE_WAIT_SECONDS = 30;

function exampleValue(field: StateField): unknown {
  // An empty default says nothing about what to send: show a value of the type instead.
  if (field.default !== undefined && field.default !== null && field.default !== "") return field.default;
  switch (field.type) {
    case "string":
      return `your ${field.name}`;
    case "number":
      return 1;
    case "boolean":
      return true;
    case "list":
      return [];
    case "object":
      return {};
    default:
      return null;
  }
}

export function exampleInput(fields: readonly StateField[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field.name, exampleValue(field)]));
}

/**
 * The example in `language`; the key is read from SUPERSTEP_API_KEY, never written in. With `wait`,
 * the call waits for the run's result (`?wait=`) instead of answering 202 at once.
 */
export function hookExample(
  language: HookLanguage,
  origin: string,
  workflowId: string,
  input: Record<string, unknown>,
  options: { wait?: boolean } = {},
): string {
  const wait = options.wait ? `?wait=${HOOK_EXAMPLE_WAIT_SECONDS}` : "";
  const url = `${origin}/api/hooks/workflows/${encodeURIComponent(workflowId)}/runs${wait}`;
  const body = JSON.stringify({ input }, null, 2);
  const answer = options.wait
    ? `200 once it ends: { run_id, status, output, error, waiting, next }; 202 after ${HOOK_EXAMPLE_WAIT_SECONDS} s`
    : "202: { run_id, status }";
  switch (language) {
    case "curl":
      return [
        `curl -X POST '${url}' \\`,
        `  -H "Authorization: Bearer $SUPERSTEP_API_KEY" \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -H "Idempotency-Key: $(uuidgen)" \\`,
        `  -d '${body.replaceAll("'", "'\\''")}'`,
      ].join("\n");
    case "javascript":
      return [
        `const response = await fetch("${url}", {`,
        `  method: "POST",`,
        `  headers: {`,
        `    authorization: \`Bearer \${process.env.SUPERSTEP_API_KEY}\`,`,
        `    "content-type": "application/json",`,
        `    "idempotency-key": crypto.randomUUID(),`,
        `  },`,
        `  body: JSON.stringify(${body.replaceAll("\n", "\n  ")}),`,
        `});`,
        `const { data } = await response.json(); // ${answer}`,
      ].join("\n");
    case "python":
      return [
        "import os, uuid, requests",
        "",
        "response = requests.post(",
        `    "${url}",`,
        `    headers={"Authorization": f"Bearer {os.environ['SUPERSTEP_API_KEY']}", "Idempotency-Key": str(uuid.uuid4())},`,
        `    json=${pythonLiteral({ input })},`,
        ")",
        `run = response.json()["data"]  # ${answer}`,
      ].join("\n");
  }
}

/** A JSON value written as a Python literal (True/False/None). */
export function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number" || typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`)
    .join(", ")}}`;
}
