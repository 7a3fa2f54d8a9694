import { useQuery } from "@tanstack/react-query";
import { CircleAlertIcon, LoaderCircleIcon } from "lucide-react";
import { type FormEvent, useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { toast } from "sonner";
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
import { Label } from "@/components/ui/label";
import { RadioGroup, RadioGroupItem } from "@/components/ui/radio-group";
import { WORKFLOW_NAME_MAX, type WorkflowDocument } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { checkWorkflowName } from "./workflow-file";
import { useCreateWorkflow } from "./workflow-mutations";

const EMPTY = "empty";

const examplesQuery = {
  queryKey: ["examples"],
  queryFn: async () => (await import("./example-catalog")).EXAMPLES,
  staleTime: Number.POSITIVE_INFINITY,
};

/** A new workflow: empty, or a copy of one of the examples; opens it once created. */
export function CreateWorkflowDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useCreateWorkflow();
  const examples = useQuery({ ...examplesQuery, enabled: open });
  const [source, setSource] = useState(EMPTY);
  const [name, setName] = useState("");
  const [nameEdited, setNameEdited] = useState(false);
  const [tried, setTried] = useState(false);
  const sourceLabel = useId();

  useEffect(() => {
    if (!open) return;
    setSource(EMPTY);
    setName("");
    setNameEdited(false);
    setTried(false);
    create.reset();
  }, [open, create.reset]);

  const choose = (value: string) => {
    setSource(value);
    // Until the person types a name, the name follows the chosen example.
    if (!nameEdited) setName(value === EMPTY ? "" : t(`workflows.examples.${value}.name`));
  };

  const problem = checkWorkflowName(name);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (problem) return;
    const example = examples.data?.find((item) => item.id === source);
    const document: WorkflowDocument = example
      ? { ...structuredClone(example.document), name: name.trim() }
      : { name: name.trim(), state: [], nodes: [], edges: [] };
    create.mutate(document, {
      onSuccess: async (workflow) => {
        toast.success(t("workflows.create.done", { name: workflow.name }));
        onOpenChange(false);
        await navigate(`/workflows/${encodeURIComponent(workflow.id)}`);
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-2xl">
        <form onSubmit={submit} noValidate className="grid gap-4">
          <DialogHeader>
            <DialogTitle>{t("workflows.create.title")}</DialogTitle>
            <DialogDescription>{t("workflows.create.description")}</DialogDescription>
          </DialogHeader>
          {create.error != null && (
            <Alert variant="destructive">
              <CircleAlertIcon aria-hidden />
              <AlertDescription>{errorMessage(t, create.error)}</AlertDescription>
            </Alert>
          )}
          <FormField
            label={t("workflows.name.label")}
            value={name}
            autoComplete="off"
            onChange={(event) => {
              setName(event.target.value);
              setNameEdited(true);
            }}
            hint={t("workflows.name.hint", { count: name.trim().length, max: WORKFLOW_NAME_MAX })}
            error={
              (tried || name.trim().length > WORKFLOW_NAME_MAX) && problem
                ? t(problem, { max: WORKFLOW_NAME_MAX })
                : null
            }
          />
          <div className="grid gap-2">
            <span id={sourceLabel} className="text-sm font-medium">
              {t("workflows.create.startFrom")}
            </span>
            {examples.isError && (
              <p role="alert" className="text-sm text-destructive">
                {errorMessage(t, examples.error)}
              </p>
            )}
            <RadioGroup
              aria-labelledby={sourceLabel}
              value={source}
              onValueChange={choose}
              className="grid max-h-[45vh] gap-2 overflow-y-auto p-1 sm:grid-cols-2"
            >
              {[EMPTY, ...(examples.data ?? []).map((example) => example.id)].map((value) => (
                <Label
                  key={value}
                  htmlFor={`source-${value}`}
                  className="flex cursor-pointer items-start gap-3 rounded-md border p-3 font-normal has-[[data-state=checked]]:border-ring has-[[data-state=checked]]:bg-accent"
                >
                  <RadioGroupItem id={`source-${value}`} value={value} className="mt-0.5" />
                  <span className="grid gap-1">
                    <span className="font-medium">
                      {value === EMPTY ? t("workflows.create.empty") : t(`workflows.examples.${value}.name`)}
                    </span>
                    <span className="text-xs leading-snug text-muted-foreground">
                      {value === EMPTY
                        ? t("workflows.create.emptyDescription")
                        : t(`workflows.examples.${value}.description`)}
                    </span>
                  </span>
                </Label>
              ))}
              {examples.isPending && (
                <span role="status" className="flex items-center gap-2 p-3 text-sm text-muted-foreground">
                  <LoaderCircleIcon className="size-4 animate-spin" aria-hidden />
                  {t("common.loading")}
                </span>
              )}
            </RadioGroup>
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              {t("common.cancel")}
            </Button>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending && <LoaderCircleIcon className="animate-spin" aria-hidden />}
              {t("workflows.create.submit")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
