import { CircleAlertIcon, XIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ApiError } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import type { ImportFailure } from "./use-import-workflow";

const SHOWN_ISSUES = 8;
const ISSUE_CODES = new Set([
  "invalid_type",
  "too_big",
  "too_small",
  "invalid_format",
  "unrecognized_keys",
  "unrecognized_key",
  "invalid_union",
  "invalid_value",
  "invalid_key",
  "invalid_element",
  "not_multiple_of",
]);

interface Issue {
  path: string;
  code: string;
}

/** The server's schema problems as "where: what", the "what" translated from zod's issue code. */
function issuesOf(error: unknown): Issue[] {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return [];
  return (error.details as { path?: unknown; code?: unknown }[]).map((item) => ({
    path: typeof item?.path === "string" ? item.path.replace(/^body\.?/, "") : "",
    code: typeof item?.code === "string" && ISSUE_CODES.has(item.code) ? item.code : "custom",
  }));
}

/** Says why a file was not imported, in the person's language, with the document's problems. */
export function ImportFailureAlert({ failure, onDismiss }: { failure: ImportFailure; onDismiss: () => void }) {
  const { t } = useTranslation();
  const message =
    failure.reason === "server" ? errorMessage(t, failure.error) : t(`workflows.import.${failure.reason}`);
  const issues = failure.reason === "notWorkflow" ? issuesOf(failure.error) : [];
  return (
    <Alert variant="destructive" data-testid="import-error" className="pr-12">
      <CircleAlertIcon aria-hidden />
      <AlertTitle className="break-all">{t("workflows.import.failed", { file: failure.fileName })}</AlertTitle>
      <AlertDescription>
        <p data-testid="import-error-message">{message}</p>
        {issues.length > 0 && (
          <ul className="list-disc pl-5 text-xs">
            {issues.slice(0, SHOWN_ISSUES).map((issue, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed once shown
              <li key={index}>
                {issue.path ? (
                  <>
                    <code className="font-mono">{issue.path}</code>
                    {t("workflows.import.issueSeparator")}
                  </>
                ) : null}
                {t(`workflows.import.issues.${issue.code}`)}
              </li>
            ))}
            {issues.length > SHOWN_ISSUES && (
              <li>{t("workflows.import.moreIssues", { count: issues.length - SHOWN_ISSUES })}</li>
            )}
          </ul>
        )}
      </AlertDescription>
      <Button
        variant="ghost"
        size="icon"
        className="absolute top-2 right-2 size-8 text-foreground"
        onClick={onDismiss}
        aria-label={t("common.dismiss")}
      >
        <XIcon aria-hidden />
      </Button>
    </Alert>
  );
}
