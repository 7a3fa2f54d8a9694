// What to offer after `{{` in a setting: the reference roots, then the declared state fields (with
// their types) after `state.`, and the context keys the document already uses after `context.`.
// Pure, so it is tested without an editor; the CodeMirror view turns it into a completion source.
import type { StateField } from "../document";

/** What a code editor knows about the references its text may hold. */
export interface ReferenceScope {
  /** The document's state fields. */
  fields: readonly Pick<StateField, "name" | "type" | "reducer" | "description">[];
  /** Context keys already used in the document (the run's caller supplies the context). */
  contextKeys?: readonly string[];
  /** Whether {{item}} and {{index}} exist here (the node is the body of a For each). */
  inForEachBody?: boolean;
}

export interface ReferenceOption {
  /** What is inserted (replacing the text from `from`). */
  label: string;
  /** The field's type, or the root's role (a locale key under editor.codeEditor.roots). */
  detail: string;
  kind: "field" | "root" | "context";
  description?: string;
}

/** Completions at the end of `before` (the text up to the cursor), or null outside `{{…`. */
export function referenceCompletions(
  before: string,
  scope: ReferenceScope,
): { from: number; options: ReferenceOption[] } | null {
  const open = before.lastIndexOf("{{");
  if (open < 0 || before.indexOf("}}", open) >= 0) return null;
  const typed = /^\s*([A-Za-z0-9_.-]*)$/.exec(before.slice(open + 2));
  if (!typed) return null;
  const word = typed[1] as string;
  const from = before.length - word.length;
  const dot = word.indexOf(".");
  if (dot < 0) {
    const roots: ReferenceOption[] = [
      { label: "state.", detail: "state", kind: "root" },
      { label: "context.", detail: "context", kind: "root" },
    ];
    if (scope.inForEachBody)
      roots.push({ label: "item", detail: "item", kind: "root" }, { label: "index", detail: "index", kind: "root" });
    const fields = scope.fields.map((f) => fieldOption(f, "state."));
    return { from, options: [...roots, ...fields] };
  }
  const root = word.slice(0, dot);
  if (word.indexOf(".", dot + 1) >= 0) return null; // nested paths: the field's shape is not known
  if (root === "state") return { from: from + dot + 1, options: scope.fields.map((f) => fieldOption(f, "")) };
  if (root === "context")
    return {
      from: from + dot + 1,
      options: [...new Set(scope.contextKeys ?? [])].map((key) => ({ label: key, detail: "", kind: "context" })),
    };
  return null;
}

function fieldOption(field: ReferenceScope["fields"][number], prefix: string): ReferenceOption {
  return {
    label: `${prefix}${field.name}`,
    detail: field.reducer && field.reducer !== "replace" ? `${field.type} · ${field.reducer}` : field.type,
    kind: "field",
    ...(field.description ? { description: field.description } : {}),
  };
}
