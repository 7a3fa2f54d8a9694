import { TriangleAlertIcon } from "lucide-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
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
import { Button } from "@/components/ui/button";
import { fullDate } from "@/lib/relative-time";
import type { SaveSession } from "./save-session";

/** Unsaved edits of an earlier session (a closed tab, a crash) found in this browser: restore or discard. */
export function JournalOfferDialog({ session }: { session: SaveSession }) {
  const { t, i18n } = useTranslation();
  const offer = useStore(session, (s) => s.offer);
  if (!offer) return null;
  const when = fullDate(new Date(offer.record.writtenAt).toISOString(), i18n.language);
  return (
    <AlertDialog open>
      <AlertDialogContent data-testid="journal-offer">
        <AlertDialogHeader>
          <AlertDialogTitle>{t("editor.save.journal.offerTitle")}</AlertDialogTitle>
          <AlertDialogDescription>{t("editor.save.journal.offerDescription", { when })}</AlertDialogDescription>
        </AlertDialogHeader>
        {offer.stale && (
          <p className="text-sm" data-testid="journal-offer-stale">
            {t("editor.save.journal.offerStale", { version: offer.record.baseVersion })}
          </p>
        )}
        <AlertDialogFooter>
          <AlertDialogCancel onClick={() => void session.getState().discardOffer()}>
            {t("editor.save.journal.discard")}
          </AlertDialogCancel>
          <AlertDialogAction onClick={session.getState().restoreOffer}>
            {t("editor.save.journal.restore")}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}

/** The journal cannot be written here (no IndexedDB, storage full): editing goes on, with a warning. */
export function JournalWarning({ session }: { session: SaveSession }) {
  const { t } = useTranslation();
  const failed = useStore(session, (s) => s.journalFailed);
  const [dismissed, setDismissed] = useState(false);
  if (!failed || dismissed) return null;
  return (
    <Alert
      role="alert"
      data-testid="journal-warning"
      className="fixed bottom-4 left-4 z-40 w-[min(26rem,calc(100vw-2rem))] border-amber-500 bg-background shadow-lg"
    >
      <TriangleAlertIcon aria-hidden className="text-amber-600" />
      <AlertTitle>{t("editor.save.journal.failedTitle")}</AlertTitle>
      <AlertDescription>
        <p>{t("editor.errors.EDITOR_JOURNAL_FAILED")}</p>
        <Button size="sm" variant="ghost" className="mt-1" onClick={() => setDismissed(true)}>
          {t("common.dismiss")}
        </Button>
      </AlertDescription>
    </Alert>
  );
}
