// Asks before restoring: the old version is saved again as a new one, and the document being
// edited (with any unsaved changes) is replaced by it; the replacement is one undo step.
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
import { errorMessage } from "@/lib/error-message";
import { selectIsDirty, useDocument } from "../document";

interface Props {
  version: number | null;
  onOpenChange(open: boolean): void;
  pending: boolean;
  error: unknown;
  onConfirm(): void;
}

export function RestoreVersionDialog({ version, onOpenChange, pending, error, onConfirm }: Props) {
  const { t } = useTranslation();
  const dirty = useDocument(selectIsDirty);
  return (
    <AlertDialog open={version !== null} onOpenChange={onOpenChange}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{t("editor.versions.restoreTitle", { version: version ?? 0 })}</AlertDialogTitle>
          <AlertDialogDescription>
            {t("editor.versions.restoreDescription", { version: version ?? 0 })}
            {dirty && ` ${t("editor.versions.restoreUnsaved")}`}
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
            disabled={pending}
            onClick={(event) => {
              // Stay open until the server answers, so a failure can be shown here.
              event.preventDefault();
              onConfirm();
            }}
          >
            {pending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
            {t("editor.versions.restoreConfirm")}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
