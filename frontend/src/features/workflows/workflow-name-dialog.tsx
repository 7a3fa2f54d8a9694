import { CircleAlertIcon, LoaderCircleIcon } from "lucide-react";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormField } from "@/components/form-field";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { WORKFLOW_NAME_MAX } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { checkWorkflowName } from "./workflow-file";

interface WorkflowNameDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  submitLabel: string;
  initialName: string;
  pending: boolean;
  error: unknown;
  onSubmit: (name: string) => void;
}

/** Asks for a workflow's name (rename, duplicate), checked as the server checks it. */
export function WorkflowNameDialog(props: WorkflowNameDialogProps) {
  const { open, onOpenChange, title, description, submitLabel, initialName, pending, error, onSubmit } = props;
  const { t } = useTranslation();
  const [name, setName] = useState(initialName);
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (open) {
      setName(initialName);
      setTried(false);
    }
  }, [open, initialName]);
  const problem = checkWorkflowName(name);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!problem) onSubmit(name);
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid gap-4">
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          {error != null && (
            <Alert variant="destructive">
              <CircleAlertIcon aria-hidden />
              <AlertDescription>{errorMessage(t, error)}</AlertDescription>
            </Alert>
          )}
          <FormField
            label={t("workflows.name.label")}
            value={name}
            onChange={(event) => setName(event.target.value)}
            autoComplete="off"
            hint={t("workflows.name.hint", { count: name.trim().length, max: WORKFLOW_NAME_MAX })}
            error={
              (tried || name.trim().length > WORKFLOW_NAME_MAX) && problem
                ? t(problem, { max: WORKFLOW_NAME_MAX })
                : null
            }
          />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              {t("common.cancel")}
            </Button>
            <Button type="submit" disabled={pending}>
              {pending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
