// Every run of the signed-in user, newest first, filtered by workflow, status, trigger, time range
// and id. A run opens in its workflow's editor with its trace replayed on the version it ran (where
// it can be resumed, cancelled or forked); two runs of a workflow can be compared side by side.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { PageTitle } from "@/components/page-title";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { workflowsQuery } from "@/features/workflows/workflow-queries";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { fullDate } from "@/lib/relative-time";
import type { RunListItem } from "../run/backend-shared";
import { formatDuration } from "../run/run-format";
import { CompareRunsDialog } from "./compare-runs-dialog";
import { filtersFrom, filtersToParams, RUN_STATUSES, RUN_TRIGGERS, type RunFilters, runsQuery } from "./run-filters";
import { shortRunId } from "./run-short-id";

const PAGE = 50;
const FIELD = "h-8 rounded-md border bg-background px-2 text-sm";

export function RunsPage() {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params);
  const [offset, setOffset] = useState(0);
  const [picked, setPicked] = useState<string[]>([]);
  const [comparing, setComparing] = useState(false);
  const workflows = useQuery(workflowsQuery);
  const query = runsQuery(filters);
  const runs = useQuery({
    queryKey: ["runs", query, offset],
    queryFn: () => api.listRuns<RunListItem>(query, PAGE, offset),
    placeholderData: (previous) => previous,
  });
  const set = (changes: Partial<RunFilters>) => {
    setOffset(0);
    setPicked([]);
    setParams(filtersToParams({ ...filters, ...changes }), { replace: true });
  };
  const items = runs.data?.items ?? [];
  const pickedRuns = items.filter((r) => picked.includes(r.id));
  const comparable =
    pickedRuns.length === 2 &&
    pickedRuns[0]?.workflow_id !== null &&
    pickedRuns[0]?.workflow_id === pickedRuns[1]?.workflow_id;
  return (
    <div className="mx-auto grid w-full max-w-6xl gap-4 px-4 py-6" data-testid="runs-page">
      <PageTitle title={t("runs.title")} />
      <h1 className="text-xl font-semibold">{t("runs.title")}</h1>
      <search className="flex flex-wrap items-end gap-2" aria-label={t("runs.filters")}>
        <label className="grid gap-1 text-xs">
          {t("runs.filter.workflow")}
          <select
            className={FIELD}
            value={filters.workflow}
            onChange={(e) => set({ workflow: e.target.value })}
            data-testid="runs-filter-workflow"
          >
            <option value="">{t("runs.filter.any")}</option>
            {(workflows.data ?? []).map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-xs">
          {t("runs.filter.status")}
          <select
            className={FIELD}
            value={filters.status}
            onChange={(e) => set({ status: e.target.value })}
            data-testid="runs-filter-status"
          >
            <option value="">{t("runs.filter.any")}</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`run.runStatus.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-xs">
          {t("runs.filter.trigger")}
          <select
            className={FIELD}
            value={filters.trigger}
            onChange={(e) => set({ trigger: e.target.value })}
            data-testid="runs-filter-trigger"
          >
            <option value="">{t("runs.filter.any")}</option>
            {RUN_TRIGGERS.map((s) => (
              <option key={s} value={s}>
                {t(`runs.trigger.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-xs">
          {t("runs.filter.from")}
          <input
            type="datetime-local"
            className={FIELD}
            value={filters.from}
            onChange={(e) => set({ from: e.target.value })}
          />
        </label>
        <label className="grid gap-1 text-xs">
          {t("runs.filter.to")}
          <input
            type="datetime-local"
            className={FIELD}
            value={filters.to}
            onChange={(e) => set({ to: e.target.value })}
          />
        </label>
        <label className="grid gap-1 text-xs">
          {t("runs.filter.id")}
          <input
            className={FIELD}
            value={filters.q}
            placeholder={t("runs.filter.idPlaceholder")}
            onChange={(e) => set({ q: e.target.value })}
            data-testid="runs-filter-id"
          />
        </label>
        <Button
          variant="outline"
          size="sm"
          className="ml-auto"
          disabled={!comparable}
          onClick={() => setComparing(true)}
          data-testid="runs-compare"
        >
          {t("runs.compare.button")}
        </Button>
      </search>
      {runs.isError && <p className="text-sm text-destructive">{errorMessage(t, runs.error)}</p>}
      <Table aria-label={t("runs.title")} data-testid="runs-table">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead className="w-8">
              <span className="sr-only">{t("runs.columns.pick")}</span>
            </TableHead>
            <TableHead>{t("runs.columns.run")}</TableHead>
            <TableHead>{t("runs.columns.workflow")}</TableHead>
            <TableHead>{t("runs.columns.trigger")}</TableHead>
            <TableHead>{t("runs.columns.status")}</TableHead>
            <TableHead>{t("runs.columns.started")}</TableHead>
            <TableHead className="text-right">{t("runs.columns.duration")}</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {items.map((run) => (
            <TableRow key={run.id} data-testid="run-row" data-run-id={run.id} data-status={run.status}>
              <TableCell>
                <input
                  type="checkbox"
                  aria-label={t("runs.columns.pickRun", { id: shortRunId(run.id) })}
                  checked={picked.includes(run.id)}
                  onChange={(e) =>
                    setPicked((p) => (e.target.checked ? [...p, run.id].slice(-2) : p.filter((id) => id !== run.id)))
                  }
                />
              </TableCell>
              <TableCell className="font-mono text-xs">
                {run.workflow_id ? (
                  <Link
                    to={`/workflows/${encodeURIComponent(run.workflow_id)}?run=${encodeURIComponent(run.id)}`}
                    className="underline-offset-4 hover:underline"
                    data-testid="run-open"
                  >
                    {shortRunId(run.id)}
                  </Link>
                ) : (
                  <span title={t("runs.draft")}>{shortRunId(run.id)}</span>
                )}
              </TableCell>
              <TableCell className="max-w-48 truncate">
                {run.workflow_name ?? t("runs.draft")}
                {run.workflow_version !== null && (
                  <span className="ml-1 text-xs text-muted-foreground">
                    {t("workflows.versionNumber", { version: run.workflow_version })}
                  </span>
                )}
              </TableCell>
              <TableCell className="text-xs">
                {t(`runs.trigger.${run.trigger}`, { defaultValue: run.trigger })}
              </TableCell>
              <TableCell className="text-xs">
                {t(`run.runStatus.${run.status}`, { defaultValue: run.status })}
                {run.error_code && <span className="block text-destructive">{run.error_code}</span>}
              </TableCell>
              <TableCell className="text-xs">{fullDate(run.created_at, i18n.language)}</TableCell>
              <TableCell className="text-right text-xs tabular-nums">
                {run.duration_ms !== null ? formatDuration(run.duration_ms) : ""}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {runs.isSuccess && items.length === 0 && <p className="text-sm text-muted-foreground">{t("runs.none")}</p>}
      <div className="flex gap-2">
        <Button
          variant="outline"
          size="sm"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE))}
        >
          {t("runs.newer")}
        </Button>
        <Button
          variant="outline"
          size="sm"
          disabled={runs.data?.nextOffset == null}
          onClick={() => setOffset(runs.data?.nextOffset ?? offset)}
        >
          {t("runs.older")}
        </Button>
      </div>
      <CompareRunsDialog
        runs={comparing && comparable ? [pickedRuns[0]?.id as string, pickedRuns[1]?.id as string] : null}
        onClose={() => setComparing(false)}
      />
    </div>
  );
}
