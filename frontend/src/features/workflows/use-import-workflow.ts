import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { ApiError, type WorkflowDocument } from "@/lib/api";
import { IMPORT_FILE_MAX_BYTES, parseWorkflowFile } from "./workflow-file";
import { useCreateWorkflow } from "./workflow-mutations";

/** Why an import failed, for the panel that says it: a local reason or the server's error. */
export interface ImportFailure {
  fileName: string;
  reason: "notJson" | "notWorkflow" | "tooLarge" | "unreadable" | "server";
  /** The server's answer, when it gave the reason (its details list each problem). */
  error?: unknown;
}

/** Reads a chosen file and creates a workflow from it; the server judges whether it is a workflow. */
export function useImportWorkflow() {
  const { t } = useTranslation();
  const create = useCreateWorkflow();
  const [failure, setFailure] = useState<ImportFailure | null>(null);

  const importFile = async (file: File) => {
    setFailure(null);
    const fileName = file.name;
    if (file.size > IMPORT_FILE_MAX_BYTES) return setFailure({ fileName, reason: "tooLarge" });
    let text: string;
    try {
      text = await file.text();
    } catch {
      return setFailure({ fileName, reason: "unreadable" });
    }
    const parsed = parseWorkflowFile(text);
    if (!parsed.ok) return setFailure({ fileName, reason: parsed.reason });
    create.mutate(parsed.document as WorkflowDocument, {
      onSuccess: (workflow) => {
        toast.success(t("workflows.import.done", { name: workflow.name }));
      },
      onError: (error) => {
        // The server's schema check is the definition of "a workflow".
        if (error instanceof ApiError && error.code === "VALIDATION_FAILED")
          setFailure({ fileName, reason: "notWorkflow", error });
        else setFailure({ fileName, reason: "server", error });
      },
    });
  };

  return { importFile, failure, dismiss: () => setFailure(null), pending: create.isPending };
}
