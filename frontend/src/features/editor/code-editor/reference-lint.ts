// The references of an editor's text that the validator would refuse, as CodeMirror diagnostics:
// the document's own checkText (unknown state fields with the nearest name, malformed references,
// item/index outside a For each body).
import type { Diagnostic } from "@codemirror/lint";
import type { TFunction } from "i18next";
import { checkText } from "../document";
import type { ReferenceScope } from "./reference-completions";

export function referenceDiagnostics(text: string, scope: ReferenceScope, t: TFunction): Diagnostic[] {
  const problems = checkText(text, {
    fields: scope.fields.map((f) => f.name),
    inForEachBody: scope.inForEachBody ?? false,
  });
  return problems.map((problem) => {
    const message = t(`editor.references.${problem.code}`, { name: problem.name ?? "" });
    const hint = problem.suggestion ? ` ${t("editor.references.suggestion", { suggestion: problem.suggestion })}` : "";
    return {
      from: problem.start ?? 0,
      to: problem.end ?? text.length,
      severity: "error",
      message: message + hint,
      ...(problem.suggestion && problem.name
        ? {
            actions: [
              {
                name: t("editor.codeEditor.useSuggestion", { suggestion: problem.suggestion }),
                apply(view, from, to) {
                  const found = view.state.sliceDoc(from, to);
                  const fixed = found.replace(`state.${problem.name}`, `state.${problem.suggestion}`);
                  view.dispatch({ changes: { from, to, insert: fixed } });
                },
              },
            ],
          }
        : {}),
    };
  });
}
