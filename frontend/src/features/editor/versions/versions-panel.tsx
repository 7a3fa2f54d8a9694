// The versions panel: every saved version with its author and time (paged), a read-only preview of
// any of them on the canvas, a comparison of any two (marks on the canvas, lists of what changed,
// a JSON diff) and a restore that saves an old version as a new one. Leaving the panel returns the
// canvas to the document being edited.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { EyeIcon, GitCompareArrowsIcon, HistoryIcon, LoaderCircleIcon } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { VersionSummary } from "@/lib/api";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { fullDate, relativeTime } from "@/lib/relative-time";
import { getSession } from "@/lib/session";
import { selectSavedVersion, useDocument, useDocumentStore } from "../document";
import { useEditorUiStore } from "../layout/editor-ui-store";
import { compareDocuments } from "./compare-documents";
import { RestoreVersionDialog } from "./restore-version-dialog";
import { backToEditing, showComparison, showVersion } from "./version-canvas";
import { VersionComparisonView } from "./version-comparison-view";
import { versionQuery, versionsQuery } from "./version-queries";

type Mode = { kind: "list" } | { kind: "preview"; version: number } | { kind: "compare"; older: number; newer: number };

export function VersionsPanel() {
  const { t, i18n } = useTranslation();
  const documentStore = useDocumentStore();
  const ui = useEditorUiStore();
  const queryClient = useQueryClient();
  const workflowId = useDocument((s) => s.workflowId) ?? "";
  const current = useDocument(selectSavedVersion);
  const [mode, setMode] = useState<Mode>({ kind: "list" });
  const [picked, setPicked] = useState<number[]>([]);
  const [restoring, setRestoring] = useState<number | null>(null);
  const me = getSession()?.user.id;
  const now = Date.now();

  const list = useInfiniteQuery(versionsQuery(workflowId));
  const versions = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const shownA = mode.kind === "preview" ? mode.version : mode.kind === "compare" ? mode.older : null;
  const shownB = mode.kind === "compare" ? mode.newer : null;
  const first = useQuery({ ...versionQuery(workflowId, shownA ?? 0), enabled: shownA !== null });
  const second = useQuery({ ...versionQuery(workflowId, shownB ?? 0), enabled: shownB !== null });

  const comparison = useMemo(
    () =>
      mode.kind === "compare" && first.data && second.data
        ? compareDocuments(first.data.document, second.data.document)
        : null,
    [mode.kind, first.data, second.data],
  );

  // The canvas follows the panel: a preview or a comparison while one is open, the document otherwise.
  useEffect(() => {
    if (mode.kind === "preview" && first.data) showVersion(ui, workflowId, mode.version, first.data.document);
    else if (mode.kind === "compare" && second.data && comparison)
      showComparison(ui, workflowId, { version: mode.newer, document: second.data.document }, comparison);
    else if (mode.kind === "list") backToEditing(ui);
  }, [ui, workflowId, mode, first.data, second.data, comparison]);
  useEffect(() => () => backToEditing(ui), [ui]);

  // An imported workflow's versions can be looked at, not restored (it is read-only).
  const readOnly = useDocument((s) => s.readOnly);
  const restore = useMutation({
    mutationFn: (number: number) => api.restoreVersion(workflowId, number),
    onSuccess: ({ workflow }, number) => {
      const state = documentStore.getState();
      const applied = state.dispatch({ type: "replace-document", document: workflow.document, reason: "restore" });
      if (applied.ok) documentStore.getState().markSaved(workflow.version);
      setRestoring(null);
      setMode({ kind: "list" });
      setPicked([]);
      toast.success(t("editor.versions.restored", { version: number, newVersion: workflow.version }));
      void queryClient.invalidateQueries({ queryKey: ["workflows"] });
    },
  });

  /** Who saved a version: you, else the author's name, else their email (an account that is gone: said so). */
  const author = (v: VersionSummary) =>
    v.author_id === me
      ? t("editor.versions.you")
      : (v.author_name ?? v.author_email ?? t("editor.versions.formerAuthor"));
  const loaded = mode.kind === "list" || (first.data && (mode.kind === "preview" || second.data));
  const loadError = first.error ?? second.error;

  const togglePick = (number: number) =>
    setPicked((p) => (p.includes(number) ? p.filter((n) => n !== number) : [...p.slice(-1), number]));

  return (
    <div className="flex flex-col gap-3 p-3" data-testid="versions-panel">
      {mode.kind !== "list" && (
        <div
          className="flex flex-col gap-2 rounded-md border border-amber-600/50 bg-amber-50 p-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
          role="status"
          data-testid="version-banner"
        >
          <p>
            {mode.kind === "preview"
              ? t("editor.versions.previewing", { version: mode.version })
              : t("editor.versions.comparing", { older: mode.older, newer: mode.newer })}
          </p>
          <div className="flex flex-wrap gap-2">
            <Button size="sm" variant="outline" onClick={() => setMode({ kind: "list" })}>
              {t("editor.versions.backToEditing")}
            </Button>
            {mode.kind === "preview" && mode.version !== current && !readOnly && (
              <Button size="sm" variant="outline" onClick={() => setRestoring(mode.version)}>
                {t("editor.versions.restore")}
              </Button>
            )}
          </div>
        </div>
      )}
      {loadError && (
        <Alert variant="destructive">
          <AlertDescription>{errorMessage(t, loadError)}</AlertDescription>
        </Alert>
      )}
      {!loaded && !loadError && <p className="text-sm text-muted-foreground">{t("common.loading")}</p>}
      {mode.kind === "compare" && first.data && second.data && comparison && (
        <VersionComparisonView
          older={{ version: mode.older, document: first.data.document }}
          newer={{ version: mode.newer, document: second.data.document }}
          comparison={comparison}
        />
      )}
      {mode.kind === "list" && (
        <>
          <div className="flex items-center justify-between gap-2">
            <h3 className="text-sm font-semibold">{t("editor.versions.title")}</h3>
            <Button
              size="sm"
              variant="outline"
              disabled={picked.length !== 2}
              onClick={() => {
                const [older, newer] = [...picked].sort((a, b) => a - b) as [number, number];
                setMode({ kind: "compare", older, newer });
              }}
            >
              <GitCompareArrowsIcon aria-hidden />
              {t("editor.versions.compare")}
            </Button>
          </div>
          <p className="text-xs text-muted-foreground">{t("editor.versions.pickTwo")}</p>
          {list.error && (
            <Alert variant="destructive">
              <AlertDescription>{errorMessage(t, list.error)}</AlertDescription>
            </Alert>
          )}
          <ul className="flex flex-col gap-1" aria-label={t("editor.versions.title")}>
            {versions.map((v) => (
              <li
                key={v.number}
                className="flex items-center gap-2 rounded-md border px-2 py-1.5 text-sm"
                data-testid="version-row"
                data-version={v.number}
              >
                <input
                  type="checkbox"
                  className="size-4 accent-primary"
                  checked={picked.includes(v.number)}
                  onChange={() => togglePick(v.number)}
                  aria-label={t("editor.versions.pick", { version: v.number })}
                />
                <div className="min-w-0 flex-1">
                  <p className="font-medium">
                    {t("workflows.versionNumber", { version: v.number })}
                    {v.number === current && (
                      <span className="ml-2 text-xs font-normal text-muted-foreground">
                        {t("editor.versions.current")}
                      </span>
                    )}
                  </p>
                  <p className="truncate text-xs text-muted-foreground">
                    <span title={v.author_id === me ? undefined : (v.author_email ?? undefined)}>{author(v)}</span> ·{" "}
                    <time dateTime={v.created_at} title={fullDate(v.created_at, i18n.language)}>
                      {relativeTime(v.created_at, now, i18n.language)}
                    </time>
                    {v.restored_from !== null &&
                      ` · ${t("editor.versions.restoredFrom", { version: v.restored_from })}`}
                  </p>
                </div>
                <Button
                  size="icon"
                  variant="ghost"
                  className="size-8"
                  aria-label={t("editor.versions.preview", { version: v.number })}
                  onClick={() => setMode({ kind: "preview", version: v.number })}
                >
                  <EyeIcon aria-hidden />
                </Button>
                <Button
                  size="icon"
                  variant="ghost"
                  className="size-8"
                  disabled={v.number === current || readOnly}
                  aria-label={t("editor.versions.restoreVersion", { version: v.number })}
                  onClick={() => setRestoring(v.number)}
                >
                  <HistoryIcon aria-hidden />
                </Button>
              </li>
            ))}
          </ul>
          {list.hasNextPage && (
            <Button
              variant="outline"
              size="sm"
              disabled={list.isFetchingNextPage}
              onClick={() => void list.fetchNextPage()}
            >
              {list.isFetchingNextPage && <LoaderCircleIcon className="animate-spin" aria-hidden />}
              {t("editor.versions.more")}
            </Button>
          )}
        </>
      )}
      <RestoreVersionDialog
        version={restoring}
        onOpenChange={(open) => {
          if (!open) {
            setRestoring(null);
            restore.reset();
          }
        }}
        pending={restore.isPending}
        error={restore.error}
        onConfirm={() => restoring !== null && restore.mutate(restoring)}
      />
    </div>
  );
}
