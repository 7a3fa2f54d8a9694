// The Problems tab's badge: how many problems stop a run, or a tick when it can run. It is always
// on screen, so it also keeps the validator's answer current (useValidation) for the whole editor.
import { CheckIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { useDocumentStore } from "../document";
import { useValidation } from "./use-validation";
import { problemCount, validationStoreFor } from "./validation-store";

export function ProblemsTabBadge() {
  useValidation();
  const { t } = useTranslation();
  const result = useStore(validationStoreFor(useDocumentStore()), (s) => s.result);
  if (result?.status === "valid") {
    return (
      <span
        className="ml-1 inline-flex align-middle text-emerald-700 dark:text-emerald-400"
        data-testid="problems-badge"
      >
        <CheckIcon className="size-3.5" aria-hidden />
        <span className="sr-only">{t("editor.validation.ready")}</span>
      </span>
    );
  }
  if (result?.status !== "invalid") return null;
  const count = problemCount(result);
  return (
    <span
      // A fixed dark red: the theme's destructive colour is too light behind white text at this size.
      className="ml-1 inline-flex min-w-4 items-center justify-center rounded-full bg-red-700 px-1 text-[10px] font-semibold leading-4 text-white"
      data-testid="problems-badge"
    >
      <span aria-hidden>{count}</span>
      <span className="sr-only">{t("editor.validation.cannotRun", { count })}</span>
    </span>
  );
}
