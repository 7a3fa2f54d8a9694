// Keeps the validator's answer current for one open editor: every document change is checked after
// a pause, the answer goes to the validation store (badge, panel) and, as translated problems, to
// the UI store (the canvas marks the nodes and edges they concern).
import type { TFunction } from "i18next";
import { useEffect, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { api } from "@/lib/api";
import { VALIDATION_CATALOG } from "../../../../../backend/src/core/errors.js";
import { selectDocument, useDocument, useDocumentStore } from "../document";
import { type ShownProblem, useEditorUiStore } from "../layout/editor-ui-store";
import { createValidationRunner, type ValidationResult, type ValidatorProblem } from "./validation-runner";
import { validationStoreFor } from "./validation-store";

/** The problem in the UI's language (the server's English text if the code is new to this UI). */
export function problemMessage(t: TFunction, problem: ValidatorProblem): string {
  return t(`editor.validation.codes.${problem.code}`, { defaultValue: problem.message });
}

/** What the server said beyond its code's usual message (a variable to set, a field's name), if anything. */
export function problemDetail(problem: ValidatorProblem): string | null {
  const usual = (VALIDATION_CATALOG as Record<string, string>)[problem.code];
  return usual !== undefined && usual !== problem.message ? problem.message : null;
}

export function shownProblems(t: TFunction, result: ValidationResult | null): ShownProblem[] {
  if (result?.status !== "invalid") return [];
  return result.problems.map((p) => ({
    code: p.code,
    message: problemMessage(t, p),
    ...(p.node_id !== undefined ? { nodeId: p.node_id } : {}),
    ...(p.edge_id !== undefined ? { edgeId: p.edge_id } : {}),
  }));
}

/** Whether two lists of shown problems say the same, in the same order. */
export function sameProblems(a: readonly ShownProblem[], b: readonly ShownProblem[]): boolean {
  return (
    a.length === b.length &&
    a.every((p, i) => {
      const q = b[i] as ShownProblem;
      return p.code === q.code && p.message === q.message && p.nodeId === q.nodeId && p.edgeId === q.edgeId;
    })
  );
}

export function useValidation(): void {
  const { t } = useTranslation();
  const documentStore = useDocumentStore();
  const ui = useEditorUiStore();
  const document = useDocument(selectDocument);
  const workflowId = useDocument((s) => s.workflowId);
  const store = validationStoreFor(documentStore);
  const runner = useMemo(
    () =>
      createValidationRunner({
        validate: (doc) => api.validateWorkflow(doc, workflowId ?? undefined),
        onChecking: () => store.setState({ checking: true }),
        onResult: (result) => store.setState({ result, checking: false }),
      }),
    [store, workflowId],
  );
  useEffect(() => {
    store.setState({ retry: () => runner.now() });
    return () => runner.dispose();
  }, [store, runner]);
  useEffect(() => runner.schedule(document), [runner, document]);
  const result = useStore(store, (s) => s.result);
  // The canvas redraws its marks when the problems change: an answer that says the same as the
  // last one (most edits of a setting) leaves them as they are.
  useEffect(() => {
    const next = shownProblems(t, result);
    if (!sameProblems(ui.getState().problems, next)) ui.getState().setProblems(next);
  }, [ui, t, result]);
}
