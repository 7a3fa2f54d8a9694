import { useQuery } from "@tanstack/react-query";
import { ArrowLeftIcon } from "lucide-react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Badge } from "@/components/ui/badge";
import { workflowQuery } from "@/features/workflows/workflow-queries";
import { HOME_PATH } from "@/lib/next-path";
import { fullDate } from "@/lib/relative-time";

/**
 * An opened workflow. For now its name and document, read-only; the editor (canvas, settings,
 * JSON view) replaces the body of this page. Its own chunk: the list page does not load it.
 */
export function WorkflowPage() {
  const { t, i18n } = useTranslation();
  const { id = "" } = useParams();
  // The route's loader has put the workflow in the cache; errors go to the route's boundary.
  // A failed background refresh keeps the page; only a workflow that cannot be loaded at all is an error.
  const { data: workflow } = useQuery({
    ...workflowQuery(id),
    throwOnError: (_error, query) => query.state.data === undefined,
  });
  const documentLabel = useId();
  if (!workflow) return null;
  return (
    <div className="mx-auto grid w-full max-w-6xl gap-4 px-4 py-6">
      <PageTitle title={workflow.name} />
      <Link
        to={HOME_PATH}
        className="flex w-fit items-center gap-1 rounded-sm text-sm text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60"
      >
        <ArrowLeftIcon className="size-4" aria-hidden />
        {t("common.backToWorkflows")}
      </Link>
      <div className="grid gap-2">
        <h1 className="break-words text-2xl font-semibold tracking-tight" data-testid="workflow-title">
          {workflow.name}
        </h1>
        <div className="flex flex-wrap items-center gap-2 text-sm text-muted-foreground">
          <Badge variant="secondary">{t("workflows.versionNumber", { version: workflow.version })}</Badge>
          <span>{t("workflowPage.savedAt", { date: fullDate(workflow.updated_at, i18n.language) })}</span>
        </div>
        {workflow.document.description && <p className="text-muted-foreground">{workflow.document.description}</p>}
      </div>
      <section aria-labelledby={documentLabel} className="grid gap-2">
        <div className="flex items-baseline justify-between gap-2">
          <h2 id={documentLabel} className="text-lg font-medium">
            {t("workflowPage.document")}
          </h2>
          <span className="text-xs text-muted-foreground">{t("workflowPage.readOnly")}</span>
        </div>
        <textarea
          readOnly
          aria-labelledby={documentLabel}
          data-testid="workflow-json"
          spellCheck={false}
          value={JSON.stringify(workflow.document, null, 2)}
          className="h-[65vh] w-full resize-y rounded-lg border bg-muted p-4 font-mono text-xs leading-relaxed outline-none focus-visible:ring-[3px] focus-visible:ring-ring/60"
        />
      </section>
    </div>
  );
}
