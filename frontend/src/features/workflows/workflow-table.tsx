import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { WorkflowSummary } from "@/lib/api";
import { fullDate, relativeTime } from "@/lib/relative-time";
import { type RowAction, WorkflowRowActions } from "./workflow-row-actions";

interface WorkflowTableProps {
  workflows: WorkflowSummary[];
  now: number;
  onAction: (action: RowAction, workflow: WorkflowSummary) => void;
}

export function WorkflowTable({ workflows, now, onAction }: WorkflowTableProps) {
  const { t, i18n } = useTranslation();
  return (
    <Table className="table-fixed" aria-label={t("workflows.title")} data-testid="workflow-table">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead className="w-auto">{t("workflows.columns.name")}</TableHead>
          <TableHead className="hidden w-24 sm:table-cell">{t("workflows.columns.version")}</TableHead>
          <TableHead className="w-40">{t("workflows.columns.saved")}</TableHead>
          <TableHead className="w-14">
            <span className="sr-only">{t("workflows.columns.actions")}</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {workflows.map((workflow) => (
          <TableRow key={workflow.id} data-testid="workflow-row" data-workflow-id={workflow.id}>
            <TableCell className="min-w-0">
              <Link
                to={`/workflows/${encodeURIComponent(workflow.id)}`}
                className="block truncate rounded-sm font-medium underline-offset-4 outline-none hover:underline focus-visible:ring-[3px] focus-visible:ring-ring/60"
                title={workflow.name}
                data-testid="workflow-name"
              >
                {workflow.name}
              </Link>
              {workflow.description && (
                <p className="truncate text-xs text-muted-foreground" title={workflow.description}>
                  {workflow.description}
                </p>
              )}
            </TableCell>
            <TableCell className="hidden text-muted-foreground tabular-nums sm:table-cell">
              {t("workflows.versionNumber", { version: workflow.version })}
            </TableCell>
            <TableCell className="text-muted-foreground">
              <time dateTime={workflow.updated_at} title={fullDate(workflow.updated_at, i18n.language)}>
                {relativeTime(workflow.updated_at, now, i18n.language)}
              </time>
            </TableCell>
            <TableCell className="text-right">
              <WorkflowRowActions workflow={workflow} onAction={onAction} />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
