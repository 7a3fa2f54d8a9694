import { CircleCheckIcon, CircleDotIcon, LoaderCircleIcon, SaveIcon } from "lucide-react";
import { useEffect, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { Button } from "@/components/ui/button";
import type { Workflow } from "@/lib/api";
import { selectIsDirty, useDocument, useDocumentStore } from "../document";
import { useEditorUiStore } from "../layout/editor-ui-store";
import { ConflictDialog, ReviewNotice } from "./conflict-dialog";
import { JournalOfferDialog, JournalWarning } from "./journal-offer-dialog";
import { LeaveGuard } from "./leave-guard";
import { RenameWorkflowButton } from "./rename-workflow-dialog";
import { SaveFailureNotice } from "./save-failure-notice";
import { createSaveSession, type SaveSession } from "./save-session";

/** Ctrl+S / Cmd+S saves from anywhere in the editor, also inside a text field. */
function useSaveShortcut(session: SaveSession) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.key.toLowerCase() !== "s") return;
      event.preventDefault();
      void session.getState().save();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [session]);
}

/**
 * The editor header's save area: rename, whether there are unsaved changes, and Save (Ctrl+S).
 * It also owns what keeps work from being lost: the local journal and its offer, the stale-save
 * dialog, and the question before leaving with unsaved changes.
 */
export function SaveControls({ workflow }: { workflow: Workflow }) {
  const { t } = useTranslation();
  const document = useDocumentStore();
  const ui = useEditorUiStore();
  // One session per opened workflow (its stores change when another workflow opens in this page);
  // `opened` is the workflow as first loaded, not each refresh of it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new session per workflow and store, on purpose
  const session = useMemo(
    () => createSaveSession({ workflowId: workflow.id, document, ui, opened: workflow }),
    [workflow.id, document, ui],
  );
  useEffect(() => session.getState().startJournal(), [session]);
  useSaveShortcut(session);
  const dirty = useDocument(selectIsDirty);
  const saving = useStore(session, (s) => s.saving);
  const failed = useStore(session, (s) => s.error !== null);

  const status = saving ? "saving" : dirty ? (failed ? "notSaved" : "unsaved") : "saved";
  const StatusIcon = saving ? LoaderCircleIcon : dirty ? CircleDotIcon : CircleCheckIcon;
  return (
    <>
      <RenameWorkflowButton />
      <span
        role="status"
        data-testid="save-status"
        data-status={status}
        className={`flex items-center gap-1 text-sm ${dirty ? "text-amber-700 dark:text-amber-400" : "text-muted-foreground"}`}
      >
        <StatusIcon className={`size-4 ${saving ? "animate-spin" : ""}`} aria-hidden />
        {t(`editor.save.status.${status}`)}
      </span>
      <Button
        size="sm"
        onClick={() => void session.getState().save()}
        disabled={!dirty}
        aria-keyshortcuts="Control+S Meta+S"
        title={t("editor.save.shortcut")}
        data-testid="save-button"
      >
        <SaveIcon aria-hidden />
        {t("editor.save.save")}
      </Button>
      <SaveFailureNotice session={session} />
      <JournalWarning session={session} />
      <JournalOfferDialog session={session} />
      <ConflictDialog session={session} />
      <ReviewNotice session={session} />
      <LeaveGuard dirty={dirty} />
    </>
  );
}
