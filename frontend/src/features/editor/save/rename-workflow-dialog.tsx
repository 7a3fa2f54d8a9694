import { PencilIcon } from "lucide-react";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormField } from "@/components/form-field";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { type DocumentError, selectDocument, useDocument } from "../document";
import { failureText } from "./failure-text";

/** Renames the workflow in the document (one undo step, saved with the next save). */
export function RenameWorkflowButton() {
  const { t } = useTranslation();
  const name = useDocument((s) => selectDocument(s).name);
  const dispatch = useDocument((s) => s.dispatch);
  const readOnly = useDocument((s) => s.readOnly);
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState(name);
  const [error, setError] = useState<DocumentError | null>(null);
  const openDialog = (next: boolean) => {
    if (next) {
      setDraft(name);
      setError(null);
    }
    setOpen(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = dispatch({ type: "update-workflow", name: draft });
    if (!result.ok) setError(result.error);
    else setOpen(false);
  };
  return (
    <>
      <Button
        variant="ghost"
        size="sm"
        onClick={() => openDialog(true)}
        disabled={readOnly}
        data-testid="rename-workflow"
      >
        <PencilIcon aria-hidden />
        {t("editor.save.rename.open")}
      </Button>
      <Dialog open={open} onOpenChange={openDialog}>
        <DialogContent>
          <form onSubmit={submit} noValidate className="grid gap-4">
            <DialogHeader>
              <DialogTitle>{t("editor.save.rename.title")}</DialogTitle>
              <DialogDescription>{t("editor.save.rename.description")}</DialogDescription>
            </DialogHeader>
            <FormField
              label={t("editor.save.rename.name")}
              value={draft}
              autoFocus
              error={error ? failureText(t, error) : null}
              onChange={(event) => {
                setDraft(event.target.value);
                setError(null);
              }}
            />
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => openDialog(false)}>
                {t("common.cancel")}
              </Button>
              <Button type="submit">{t("editor.save.rename.apply")}</Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </>
  );
}
