import { CircleAlertIcon, LoaderCircleIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Alert, AlertDescription } from "@/components/ui/alert";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import type { WorkflowSummary } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";

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
    <AlertDialog open={workflow !== null} onOpenChange={onOpenChange}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{t("workflows.delete.title")}</AlertDialogTitle>
          <AlertDialogDescription>
            {t("workflows.delete.description", { name: workflow?.name ?? "", count: workflow?.version ?? 0 })}
          </AlertDialogDescription>
        </AlertDialogHeader>
        {error != null && (
          <Alert variant="destructive">
            <CircleAlertIcon aria-hidden />
            <AlertDescription>{errorMessage(t, error)}</AlertDescription>
          </Alert>
        )}
        <AlertDialogFooter>
          <AlertDialogCancel>{t("common.cancel")}</AlertDialogCancel>
          <AlertDialogAction
            variant="destructive"
            disabled={pending}
            onClick={(event) => {
              // Stay open until the server answers, so a failure can be shown here.
              event.preventDefault();
              onConfirm();
            }}
          >
            {pending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
            {t("workflows.delete.confirm")}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
