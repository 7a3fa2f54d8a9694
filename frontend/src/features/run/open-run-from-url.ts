// `?run=<id>` on a workflow's page opens that run in the run panel, its trace replayed from the
// first event, on the canvas of the version it ran (read-only when it is not the current one), as
// the runs page links do.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useSearchParams } from "react-router";
import type { Workflow } from "@/lib/api";
import { api } from "@/lib/api";
import { useEditorUiStore } from "../editor/layout/editor-ui-store";
import { showVersion } from "../editor/versions/version-canvas";
import { versionQuery } from "../editor/versions/version-queries";
import { useRunStore } from "./run-store";
import type { RunView } from "./run-types";

export function useRunFromUrl(workflow: Workflow): void {
  const [params] = useSearchParams();
  const runId = params.get("run");
  const store = useRunStore();
  const ui = useEditorUiStore();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!runId || store.getState().trace?.runId === runId) return;
    let cancelled = false;
    void (async () => {
      try {
        const run = await api.getRun<RunView>(runId);
        if (cancelled) return;
        const ran = run.workflow_version;
        if (run.workflow_id === workflow.id && ran !== null && ran !== workflow.version) {
          const version = await queryClient.fetchQuery(versionQuery(workflow.id, ran));
          if (cancelled) return;
          showVersion(ui, workflow.id, ran, version.document);
        }
        store.getState().openRun(run.id, run.status);
      } catch (error) {
        if (!cancelled)
          store.setState({
            actionError: {
              code: error instanceof Error && "code" in error ? String(error.code) : "RUN_NOT_FOUND",
              message: "",
            },
            expanded: true,
          });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [runId, store, ui, queryClient, workflow.id, workflow.version]);
}
