import { useTranslation } from "react-i18next";
import { ConfirmDialog } from "@/components/confirm-dialog";
import type { WorkflowSummary } from "@/lib/api";

interface DeleteWorkflowDialogProps {
  workflow: WorkflowSummary | null;
  onOpenChange: (open: boolean) => void;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
}

/** Asks before deleting: a workflow goes with all its versions. */
export function DeleteWorkflowDialog({ workflow, onOpenChange, pending, error, onConfirm }: DeleteWorkflowDialogProps) {
  const { t } = useTranslation();
  return (
    <ConfirmDialog
      open={workflow !== null}
      onOpenChange={onOpenChange}
      title={t("workflows.delete.title")}
      description={t("workflows.delete.description", { name: workflow?.name ?? "", count: workflow?.version ?? 0 })}
      confirmLabel={t("workflows.delete.confirm")}
      variant="destructive"
      pending={pending}
      error={error}
      onConfirm={onConfirm}
    />
  );
}
