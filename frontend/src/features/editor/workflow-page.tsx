import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { useParams } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { createRunStore, RunStoreProvider } from "@/features/run/run-store";
import { workflowQuery } from "@/features/workflows/workflow-queries";
import { reportSessionEnded } from "@/lib/api";
import { createDocumentStore, DocumentStoreProvider, selectDocument, selectSavedVersion } from "./document";
import { isReadOnlyDocument } from "./imported/imported-workflow";
import { EditorLayout } from "./layout/editor-layout";
import { createEditorUiStore, EditorUiProvider } from "./layout/editor-ui-store";

/**
 * An opened workflow in the editor. Its own chunk: the list page does not load it. One document
 * store and one UI store per opened workflow; the document is loaded once, then changed only by
 * the editor's commands (a save or a restore reloads it).
 */
export function WorkflowPage() {
  const { t } = useTranslation();
  const { id = "" } = useParams();
  // The route's loader has put the workflow in the cache; errors go to the route's boundary.
  // A failed background refresh keeps the page; only a workflow that cannot be loaded at all is an error.
  const { data: workflow } = useQuery({
    ...workflowQuery(id),
    throwOnError: (_error, query) => query.state.data === undefined,
  });
  const workflowId = workflow?.id;
  // Stores live as long as the page shows this workflow; a background refresh does not reset edits.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new store per workflow id, on purpose
  const stores = useMemo(() => {
    if (!workflow) return null;
    const document = createDocumentStore();
    const loaded = document.getState().load({
      workflowId: workflow.id,
      version: workflow.version,
      document: workflow.document,
      // An imported graph's workflow: every command is refused, so nothing can change or be saved.
      readOnly: isReadOnlyDocument(workflow.document),
    });
    const run = createRunStore({
      workflowId: workflow.id,
      document: () => selectDocument(document.getState()),
      savedVersion: () => selectSavedVersion(document.getState()),
      onSessionEnded: () => reportSessionEnded(),
    });
    return { document, ui: createEditorUiStore(), run, loaded };
  }, [workflowId]);
  // The run socket closes with the page (a run goes on on the server).
  useEffect(() => () => stores?.run.getState().dispose(), [stores]);
  if (!workflow || !stores) return null;
  if (!stores.loaded.ok) {
    const { code, params } = stores.loaded.error;
    return (
      <div className="mx-auto w-full max-w-3xl px-4 py-6">
        <PageTitle title={workflow.name} />
        <Alert variant="destructive" data-testid="editor-load-error">
          <AlertTitle>{t("editor.layout.cannotOpen")}</AlertTitle>
          <AlertDescription>{t(`editor.errors.${code}`, params ?? {})}</AlertDescription>
        </Alert>
      </div>
    );
  }
  return (
    <DocumentStoreProvider store={stores.document}>
      <EditorUiProvider store={stores.ui}>
        <RunStoreProvider store={stores.run}>
          <PageTitle title={workflow.name} />
          <EditorLayout workflow={workflow} />
        </RunStoreProvider>
      </EditorUiProvider>
    </DocumentStoreProvider>
  );
}
