import { CopyIcon, DownloadIcon, EllipsisIcon, ExternalLinkIcon, PencilIcon, Trash2Icon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import type { WorkflowSummary } from "@/lib/api";

export type RowAction = "rename" | "duplicate" | "export" | "delete";

/** The menu of one workflow's actions, named after it for screen readers. */
export function WorkflowRowActions({
  workflow,
  onAction,
}: {
  workflow: WorkflowSummary;
  onAction: (action: RowAction, workflow: WorkflowSummary) => void;
}) {
  const { t } = useTranslation();
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" aria-label={t("workflows.actions.menu", { name: workflow.name })}>
          <EllipsisIcon aria-hidden />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-48">
        <DropdownMenuItem asChild>
          <Link to={`/workflows/${encodeURIComponent(workflow.id)}`}>
            <ExternalLinkIcon aria-hidden />
            {t("workflows.actions.open")}
          </Link>
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => onAction("rename", workflow)}>
          <PencilIcon aria-hidden />
          {t("workflows.actions.rename")}
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => onAction("duplicate", workflow)}>
          <CopyIcon aria-hidden />
          {t("workflows.actions.duplicate")}
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => onAction("export", workflow)}>
          <DownloadIcon aria-hidden />
          {t("workflows.actions.export")}
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <DropdownMenuItem variant="destructive" onSelect={() => onAction("delete", workflow)}>
          <Trash2Icon aria-hidden />
          {t("workflows.actions.delete")}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
