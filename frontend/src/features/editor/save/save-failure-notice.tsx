import { CircleAlertIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ApiError } from "@/lib/api";
import { failureText } from "./failure-text";

/** Whether trying the same save again can work: the server was away or failed, not a refusal. */
function retryable(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 0 || error.status >= 500);
}

import { isConflict, type SaveSession } from "./save-session";

/** A save that failed (server away, refused): says why, that the edits are kept, and offers a retry. */
export function SaveFailureNotice({ session }: { session: SaveSession }) {
  const { t } = useTranslation();
  const error = useStore(session, (s) => s.error);
  const saving = useStore(session, (s) => s.saving);
  const conflict = useStore(session, (s) => s.conflict);
  if (error === null || (conflict && isConflict(error))) return null;
  return (
    <Alert
      variant="destructive"
      role="alert"
      data-testid="save-failure"
      className="fixed right-4 bottom-4 z-40 w-[min(28rem,calc(100vw-2rem))] bg-background shadow-lg"
    >
      <CircleAlertIcon aria-hidden />
      <AlertTitle>{t("editor.save.failed.title")}</AlertTitle>
      <AlertDescription>
        <p>{failureText(t, error)}</p>
        <p>{t(retryable(error) ? "editor.save.failed.kept" : "editor.save.failed.keptRefused")}</p>
        <div className="mt-2 flex gap-2">
          <Button size="sm" variant="outline" disabled={saving} onClick={() => void session.getState().save()}>
            {t("common.retry")}
          </Button>
          <Button size="sm" variant="ghost" onClick={() => session.setState({ error: null })}>
            {t("common.dismiss")}
          </Button>
        </div>
      </AlertDescription>
    </Alert>
  );
}
