import { useQuery } from "@tanstack/react-query";
import { CircleAlertIcon, FolderGitIcon, LoaderCircleIcon, PlusIcon, SearchIcon, UploadIcon } from "lucide-react";
import { useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { toast } from "sonner";
import { PageTitle } from "@/components/page-title";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { healthQuery } from "@/features/auth/auth-queries";
import { api, type WorkflowSummary } from "@/lib/api";
import { downloadText } from "@/lib/download";
import { errorMessage } from "@/lib/error-message";
import { CreateWorkflowDialog } from "./create-workflow-dialog";
import { DeleteWorkflowDialog } from "./delete-workflow-dialog";
import { ImportFailureAlert } from "./import-failure-alert";
import { useImportWorkflow } from "./use-import-workflow";
import { fitName, workflowFileName, workflowFileText } from "./workflow-file";
import { filterAndSort, parseSort, SORTS, type Sort } from "./workflow-list";
import { useDeleteWorkflow, useDuplicateWorkflow, useRenameWorkflow } from "./workflow-mutations";
import { WorkflowNameDialog } from "./workflow-name-dialog";
import { workflowsQuery } from "./workflow-queries";
import type { RowAction } from "./workflow-row-actions";
import { WorkflowTable } from "./workflow-table";

const SORT_LABELS: Record<Sort, string> = {
  "updated-desc": "workflows.sort.updatedDesc",
  "updated-asc": "workflows.sort.updatedAsc",
  "name-asc": "workflows.sort.nameAsc",
  "name-desc": "workflows.sort.nameDesc",
};

export function WorkflowsPage() {
  const { t, i18n } = useTranslation();
  const list = useQuery(workflowsQuery);
  const health = useQuery(healthQuery);
  const [params, setParams] = useSearchParams();
  const query = params.get("q") ?? "";
  const sort = parseSort(params.get("sort"));
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<WorkflowSummary | null>(null);
  const [duplicating, setDuplicating] = useState<WorkflowSummary | null>(null);
  const [deleting, setDeleting] = useState<WorkflowSummary | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const rename = useRenameWorkflow();
  const duplicate = useDuplicateWorkflow();
  const remove = useDeleteWorkflow();
  const importer = useImportWorkflow();

  const setParam = (key: string, value: string, fallback: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value === fallback) next.delete(key);
        else next.set(key, value);
        return next;
      },
      { replace: true },
    );

  const workflows = list.data ?? [];
  const shown = useMemo(
    () => filterAndSort(workflows, query, sort, i18n.language),
    [workflows, query, sort, i18n.language],
  );
  // One clock for the whole list, taken when the data arrived, so rows agree with each other.
  const now = useMemo(() => (list.dataUpdatedAt ? Date.now() : 0), [list.dataUpdatedAt]);

  const exportWorkflow = async (workflow: WorkflowSummary) => {
    try {
      const full = await api.getWorkflow(workflow.id);
      downloadText(workflowFileText(full.document), workflowFileName(full.name));
    } catch (error) {
      toast.error(errorMessage(t, error));
    }
  };

  const onAction = (action: RowAction, workflow: WorkflowSummary) => {
    if (action === "rename") {
      rename.reset();
      setRenaming(workflow);
    } else if (action === "duplicate") {
      duplicate.reset();
      setDuplicating(workflow);
    } else if (action === "delete") {
      remove.reset();
      setDeleting(workflow);
    } else void exportWorkflow(workflow);
  };

  const importEnabled = health.data?.import_enabled === true;

  return (
    <div className="mx-auto grid w-full max-w-6xl gap-6 px-4 py-8">
      <PageTitle title={t("workflows.title")} />
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">{t("workflows.title")}</h1>
          <p className="text-sm text-muted-foreground">{t("workflows.description")}</p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {importEnabled && (
            <Button variant="outline" asChild>
              <Link to="/import-repo" data-testid="import-repo-entry">
                <FolderGitIcon aria-hidden />
                {t("workflows.importRepo")}
              </Link>
            </Button>
          )}
          <Button variant="outline" onClick={() => fileInput.current?.click()} disabled={importer.pending}>
            {importer.pending ? <LoaderCircleIcon className="animate-spin" aria-hidden /> : <UploadIcon aria-hidden />}
            {t("workflows.import.button")}
          </Button>
          <input
            ref={fileInput}
            type="file"
            accept=".json,application/json"
            className="sr-only"
            tabIndex={-1}
            aria-label={t("workflows.import.fileLabel")}
            data-testid="import-file"
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = "";
              if (file) void importer.importFile(file);
            }}
          />
          <Button onClick={() => setCreating(true)}>
            <PlusIcon aria-hidden />
            {t("workflows.create.button")}
          </Button>
        </div>
      </div>

      {importer.failure && <ImportFailureAlert failure={importer.failure} onDismiss={importer.dismiss} />}

      <search aria-label={t("workflows.search.region")} className="flex flex-wrap items-center gap-2">
        <div className="relative min-w-56 flex-1">
          <SearchIcon
            className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden
          />
          <Input
            type="search"
            className="pl-9"
            value={query}
            onChange={(event) => setParam("q", event.target.value, "")}
            placeholder={t("workflows.search.placeholder")}
            aria-label={t("workflows.search.label")}
          />
        </div>
        <Select value={sort} onValueChange={(value) => setParam("sort", value, "updated-desc")}>
          <SelectTrigger className="w-52" aria-label={t("workflows.sort.label")}>
            <SelectValue />
          </SelectTrigger>
          <SelectContent>
            {SORTS.map((value) => (
              <SelectItem key={value} value={value}>
                {t(SORT_LABELS[value])}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      </search>

      {list.isError && (
        <Alert variant="destructive">
          <CircleAlertIcon aria-hidden />
          <AlertDescription className="flex flex-wrap items-center gap-2">
            {errorMessage(t, list.error)}
            <Button size="sm" variant="outline" onClick={() => void list.refetch()}>
              {t("common.retry")}
            </Button>
          </AlertDescription>
        </Alert>
      )}

      <p className="sr-only" role="status" aria-live="polite">
        {query ? t("workflows.search.results", { count: shown.length }) : ""}
      </p>

      {workflows.length === 0 && list.isSuccess ? (
        <div className="grid justify-items-center gap-3 rounded-lg border border-dashed px-6 py-16 text-center">
          <h2 className="text-lg font-medium">{t("workflows.empty.title")}</h2>
          <p className="max-w-md text-sm text-muted-foreground">{t("workflows.empty.description")}</p>
          <Button onClick={() => setCreating(true)}>
            <PlusIcon aria-hidden />
            {t("workflows.create.button")}
          </Button>
        </div>
      ) : shown.length === 0 && workflows.length > 0 ? (
        <p className="rounded-lg border border-dashed px-6 py-12 text-center text-muted-foreground">
          {t("workflows.search.none", { query })}
        </p>
      ) : (
        workflows.length > 0 && <WorkflowTable workflows={shown} now={now} onAction={onAction} />
      )}

      <CreateWorkflowDialog open={creating} onOpenChange={setCreating} />

      <WorkflowNameDialog
        open={renaming !== null}
        onOpenChange={(open) => !open && setRenaming(null)}
        title={t("workflows.rename.title")}
        description={t("workflows.rename.description")}
        submitLabel={t("workflows.rename.submit")}
        initialName={renaming?.name ?? ""}
        pending={rename.isPending}
        error={rename.error}
        onSubmit={(name) =>
          renaming &&
          rename.mutate(
            { id: renaming.id, name },
            {
              onSuccess: (workflow) => {
                toast.success(t("workflows.rename.done", { name: workflow.name }));
                setRenaming(null);
              },
            },
          )
        }
      />

      <WorkflowNameDialog
        open={duplicating !== null}
        onOpenChange={(open) => !open && setDuplicating(null)}
        title={t("workflows.duplicate.title")}
        description={t("workflows.duplicate.description")}
        submitLabel={t("workflows.duplicate.submit")}
        initialName={
          duplicating ? fitName(duplicating.name, (name) => t("workflows.duplicate.copyName", { name })) : ""
        }
        pending={duplicate.isPending}
        error={duplicate.error}
        onSubmit={(name) =>
          duplicating &&
          duplicate.mutate(
            { id: duplicating.id, name },
            {
              onSuccess: (workflow) => {
                toast.success(t("workflows.duplicate.done", { name: workflow.name }));
                setDuplicating(null);
              },
            },
          )
        }
      />

      <DeleteWorkflowDialog
        workflow={deleting}
        onOpenChange={(open) => !open && setDeleting(null)}
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast.success(t("workflows.delete.done", { name: deleting.name }));
              setDeleting(null);
            },
          })
        }
      />
    </div>
  );
}
