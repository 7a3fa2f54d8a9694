// The graphs an import found, each with what the check step learnt of it (its counts and
// subgraphs, or why it did not load) and, for a graph that loaded, "Create workflow from this
// graph", which opens the new workflow in the editor.
import { CircleAlertIcon, CircleCheckIcon, CircleDashedIcon, LoaderCircleIcon } from "lucide-react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { ImportGraph, ImportJob } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { createAction, type InspectionView, inspectionView } from "./graph-inspection";
import { graphLocation } from "./import-job";
import { useCreateWorkflowFromImport } from "./import-queries";

function Inspection({ view }: { view: InspectionView }) {
  const { t } = useTranslation();
  if (view.kind === "checking")
    return (
      <p className="flex items-center gap-1.5 text-xs text-muted-foreground" data-testid="import-graph-inspection">
        <LoaderCircleIcon className="size-3.5 animate-spin" aria-hidden />
        {t("importRepo.graph.checking")}
      </p>
    );
  if (view.kind === "unchecked")
    return (
      <p className="flex items-center gap-1.5 text-xs text-muted-foreground" data-testid="import-graph-inspection">
        <CircleDashedIcon className="size-3.5" aria-hidden />
        {t("importRepo.graph.unchecked")}
      </p>
    );
  if (view.kind === "loaded")
    return (
      <div className="grid gap-1 text-xs" data-testid="import-graph-inspection">
        <p className="flex items-center gap-1.5 font-medium text-green-700 dark:text-green-300">
          <CircleCheckIcon className="size-3.5" aria-hidden />
          {t("importRepo.graph.loaded")}
        </p>
        <p className="text-muted-foreground" data-testid="import-graph-counts">
          {t("importRepo.graph.counts", {
            nodes: t("importRepo.graph.nodes", { count: view.nodes }),
            edges: t("importRepo.graph.edges", { count: view.edges }),
            conditional: t("importRepo.graph.conditionalEdges", { count: view.conditionalEdges }),
          })}
        </p>
        {view.subgraphs.length > 0 && (
          <p className="text-muted-foreground" data-testid="import-graph-subgraphs">
            {t("importRepo.graph.subgraphs", { count: view.subgraphs.length })}{" "}
            {view.subgraphs.map((name, index) => (
              <span key={name}>
                {index > 0 && ", "}
                <code className="rounded bg-muted px-1 py-0.5">{name}</code>
              </span>
            ))}
          </p>
        )}
      </div>
    );
  return (
    <div className="grid gap-1 text-xs" data-testid="import-graph-inspection">
      <p className="flex items-center gap-1.5 font-medium text-destructive">
        <CircleAlertIcon className="size-3.5" aria-hidden />
        <span data-testid="import-graph-cause">
          {view.cause === "missing_env"
            ? t("importRepo.graph.cause.missing_env", {
                count: view.variables.length,
                names: view.variables.join(", "),
              })
            : view.cause === "exception"
              ? view.errorType
                ? t("importRepo.graph.cause.exception", { type: view.errorType })
                : t("importRepo.graph.cause.exceptionUntyped")
              : t(`importRepo.graph.cause.${view.cause}`)}
        </span>
      </p>
      {view.stage && <p className="text-muted-foreground">{t(`importRepo.graph.stage.${view.stage}`)}</p>}
      {/* The server's (Python's) own words, as they are; monospace, so the UI font names it. */}
      {view.message && (
        <p className="font-mono break-all whitespace-pre-wrap" data-testid="import-graph-message">
          {view.message}
        </p>
      )}
      {view.location && (
        <p className="text-muted-foreground">
          {t("importRepo.graph.at")}{" "}
          <code className="font-mono" data-testid="import-graph-error-location">
            {view.location}
          </code>
        </p>
      )}
    </div>
  );
}

function CreateButton({ job, graph, describedBy }: { job: ImportJob; graph: ImportGraph; describedBy: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useCreateWorkflowFromImport(job.id);
  const reasonId = useId();
  const action = createAction(graph, job);
  if (action === "hidden") return null;
  const reason =
    action === "waiting"
      ? t("importRepo.graph.createWaiting")
      : action === "unavailable"
        ? t("importRepo.graph.createUnavailable")
        : null;
  return (
    <div className="grid gap-1.5">
      <Button
        size="sm"
        className="justify-self-start"
        disabled={action !== "enabled" || create.isPending}
        aria-describedby={reason ? `${describedBy} ${reasonId}` : describedBy}
        data-testid="import-create"
        onClick={() =>
          create.mutate(graph.id, {
            onSuccess: (workflow) => void navigate(`/workflows/${encodeURIComponent(workflow.id)}`),
          })
        }
      >
        {create.isPending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
        {t("importRepo.job.createWorkflow")}
      </Button>
      {reason && (
        <p id={reasonId} className="text-xs text-muted-foreground" data-testid="import-create-reason">
          {reason}
        </p>
      )}
      {create.isError && (
        <Alert variant="destructive" data-testid="import-create-error">
          <CircleAlertIcon aria-hidden />
          <AlertDescription>{errorMessage(t, create.error)}</AlertDescription>
        </Alert>
      )}
    </div>
  );
}

/** The picker: one entry per graph found, in the order the server lists them. */
export function GraphPicker({ job }: { job: ImportJob }) {
  const { t } = useTranslation();
  const id = useId();
  if (job.graphs.length === 0) return null;
  return (
    <section className="grid gap-3" aria-labelledby={id}>
      <h3 id={id} className="text-sm font-semibold">
        {t("importRepo.job.graphs", { count: job.graphs.length })}
      </h3>
      <ul className="grid gap-2" data-testid="import-graphs">
        {job.graphs.map((graph, index) => {
          const view = inspectionView(graph, job);
          const headingId = `${id}-graph-${index}`;
          return (
            <li
              key={graph.id}
              className="grid gap-2 rounded-md border p-3"
              data-testid="import-graph"
              data-inspection={view.kind}
            >
              <div className="grid gap-0.5">
                <h4 id={headingId} className="text-sm font-medium break-all" data-testid="import-graph-id">
                  {graph.id}
                </h4>
                <p className="font-mono text-xs break-all text-muted-foreground" data-testid="import-graph-spec">
                  {graph.spec}
                </p>
                <p className="text-xs text-muted-foreground">
                  <span data-testid="import-graph-location" className="font-mono">
                    {graphLocation(graph)}
                  </span>
                  {" · "}
                  {t(graph.origin === "scan" ? "importRepo.origin.scan" : "importRepo.origin.langgraphJson")}
                </p>
              </div>
              <Inspection view={view} />
              <CreateButton job={job} graph={graph} describedBy={headingId} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
