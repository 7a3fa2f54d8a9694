import { ArrowLeftIcon, LockIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Badge } from "@/components/ui/badge";
import type { Workflow } from "@/lib/api";
import { HOME_PATH } from "@/lib/next-path";
import { HistoryControls } from "../canvas/history-controls";
import { selectDocument, selectSavedVersion, useDocument } from "../document";
import { isReadOnlyDocument } from "../imported/imported-workflow";
import { SaveControls } from "../save/save-controls";

/** The editor's top bar: back to the list, the workflow's name and version, history and save. */
export function EditorHeader({ workflow }: { workflow: Workflow }) {
  const { t } = useTranslation();
  const name = useDocument((s) => selectDocument(s).name);
  const version = useDocument(selectSavedVersion) ?? workflow.version;
  const imported = useDocument((s) => isReadOnlyDocument(s.content.document));
  return (
    <div className="flex min-h-12 flex-wrap items-center gap-3 px-3 py-1.5">
      <Link
        to={HOME_PATH}
        aria-label={t("common.backToWorkflows")}
        className="flex items-center rounded-sm p-1 text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60"
      >
        <ArrowLeftIcon className="size-4" aria-hidden />
      </Link>
      <h1 className="min-w-0 truncate text-base font-semibold" data-testid="workflow-title" title={name}>
        {name}
      </h1>
      <Badge variant="secondary">{t("workflows.versionNumber", { version })}</Badge>
      <div className="ml-auto flex items-center gap-2">
        {/* An imported workflow cannot change: no history to walk, nothing to save. */}
        {imported ? (
          <Badge variant="outline" data-testid="editor-read-only">
            <LockIcon aria-hidden />
            {t("editor.imported.readOnly")}
          </Badge>
        ) : (
          <>
            <HistoryControls />
            <SaveControls workflow={workflow} />
          </>
        )}
      </div>
    </div>
  );
}
