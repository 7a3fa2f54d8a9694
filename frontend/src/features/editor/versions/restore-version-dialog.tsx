// Asks before restoring: the old version is saved again as a new one, and the document being
// edited (with any unsaved changes) is replaced by it; the replacement is one undo step.
import { useTranslation } from "react-i18next";
import { ConfirmDialog } from "@/components/confirm-dialog";
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
    <ConfirmDialog
      open={version !== null}
      onOpenChange={onOpenChange}
      title={t("editor.versions.restoreTitle", { version: version ?? 0 })}
      description={
        <>
          {t("editor.versions.restoreDescription", { version: version ?? 0 })}
          {dirty && ` ${t("editor.versions.restoreUnsaved")}`}
        </>
      }
      confirmLabel={t("editor.versions.restoreConfirm")}
      pending={pending}
      error={error}
      onConfirm={onConfirm}
    />
  );
}
