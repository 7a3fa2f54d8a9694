// The Problems panel: whether the workflow can run, and if not, each problem the backend validator
// found, in the UI's language. A problem on a node (or an edge) leads to it: the node is selected,
// its settings open and the canvas brings it into view.
import { AlertCircleIcon, CheckCircle2Icon, LoaderCircleIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { Button } from "@/components/ui/button";
import { selectEdges, selectNodes, useDocument, useDocumentStore } from "../document";
import { useEditorUi } from "../layout/editor-ui-store";
import { problemDetail, problemMessage } from "./use-validation";
import type { ValidatorProblem } from "./validation-runner";
import { problemCount, validationStoreFor } from "./validation-store";

export function ValidationPanel() {
  const { t } = useTranslation();
  const store = validationStoreFor(useDocumentStore());
  const result = useStore(store, (s) => s.result);
  const checking = useStore(store, (s) => s.checking);
  const retry = useStore(store, (s) => s.retry);
  const nodes = useDocument(selectNodes);
  const edges = useDocument(selectEdges);
  const focusNode = useEditorUi((s) => s.focusNode);

  const nodeName = (id: string) => {
    const node = nodes.find((n) => n.id === id);
    const label = node?.data.label;
    return typeof label === "string" && label !== "" ? label : id;
  };
  /** The node a problem leads to: its own, or the node an edge starts from. */
  const target = (p: ValidatorProblem) =>
    p.node_id ?? (p.edge_id !== undefined ? edges.find((e) => e.id === p.edge_id)?.source : undefined);
  const where = (p: ValidatorProblem) => {
    if (p.node_id !== undefined) return nodeName(p.node_id);
    const edge = p.edge_id !== undefined ? edges.find((e) => e.id === p.edge_id) : undefined;
    if (edge) return t("editor.validation.edge", { source: nodeName(edge.source), target: nodeName(edge.target) });
    return t("editor.validation.workflow");
  };

  return (
    <div className="flex flex-col gap-3 p-3" data-testid="validation-panel">
      <div
        role="status"
        aria-live="polite"
        className="flex items-center gap-2 text-sm font-medium"
        data-testid="validation-summary"
      >
        {result === null ? (
          <>
            <LoaderCircleIcon className="size-4 animate-spin" aria-hidden />
            {t("editor.validation.checking")}
          </>
        ) : result.status === "valid" ? (
          <>
            <CheckCircle2Icon className="size-4 text-emerald-700 dark:text-emerald-400" aria-hidden />
            {t("editor.validation.ready")}
          </>
        ) : result.status === "invalid" ? (
          <>
            <AlertCircleIcon className="size-4 text-destructive" aria-hidden />
            {t("editor.validation.cannotRun", { count: problemCount(result) })}
          </>
        ) : (
          <>
            <AlertCircleIcon className="size-4 text-destructive" aria-hidden />
            {t("editor.validation.failed", {
              error: t(`errors.${result.code}`, { defaultValue: t("common.unknownErrorCode", { code: result.code }) }),
            })}
          </>
        )}
        {checking && result !== null && (
          <span className="ml-auto text-xs font-normal text-muted-foreground">{t("editor.validation.checking")}</span>
        )}
      </div>
      {result?.status === "failed" && (
        <Button variant="outline" size="sm" className="self-start" onClick={retry}>
          {t("common.retry")}
        </Button>
      )}
      {result?.status === "invalid" && (
        <ul className="flex flex-col gap-1" aria-label={t("editor.validation.listLabel")}>
          {result.problems.map((p, index) => {
            const nodeId = target(p);
            const detail = problemDetail(p);
            const body = (
              <>
                <span className="block text-xs font-semibold text-muted-foreground">{where(p)}</span>
                <span className="block">{problemMessage(t, p)}</span>
                {detail && <span className="block text-xs text-muted-foreground">{detail}</span>}
              </>
            );
            return (
              // Problems have no id of their own; the list is replaced whole on each answer.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <li key={index} data-testid="problem-item" data-code={p.code}>
                {nodeId !== undefined ? (
                  <button
                    type="button"
                    onClick={() => focusNode(nodeId)}
                    className="w-full rounded-md border px-2 py-1.5 text-left text-sm outline-none hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/60"
                  >
                    {body}
                  </button>
                ) : (
                  <div className="rounded-md border px-2 py-1.5 text-sm">{body}</div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
