import { EyeIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
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
import type { WorkflowDocument } from "@/lib/api";
import { useEditorUi } from "../layout/editor-ui-store";
import { type ChangeSummary, changeCount, type ElementChanges } from "./change-summary";
import type { SaveSession } from "./save-session";

const KINDS = ["nodes", "edges", "state"] as const;
const CHANGES = ["added", "removed", "changed"] as const;

/** How an element is named in the lists: a node by its label (or id), an edge by its ends. */
function elementName(kind: (typeof KINDS)[number] | "node" | "edge", id: string, docs: WorkflowDocument[]): string {
  if (kind === "nodes" || kind === "node") {
    for (const doc of docs) {
      const node = doc.nodes.find((n) => n.id === id);
      if (node) return typeof node.data.label === "string" && node.data.label ? `${node.data.label} (${id})` : id;
    }
  }
  if (kind === "edges" || kind === "edge") {
    for (const doc of docs) {
      const edge = doc.edges.find((e) => e.id === id);
      if (edge) return `${edge.source} → ${edge.target}${edge.label ? ` (${edge.label})` : ""}`;
    }
  }
  return id;
}

function ChangeList({ changes, docs }: { changes: ChangeSummary; docs: WorkflowDocument[] }) {
  const { t } = useTranslation();
  if (changeCount(changes) === 0) return <p className="text-sm">{t("editor.save.conflict.noChanges")}</p>;
  const lines: { key: string; text: string }[] = [];
  for (const field of changes.workflow) lines.push({ key: field, text: t(`editor.save.conflict.workflow.${field}`) });
  for (const kind of KINDS) {
    const group: ElementChanges = changes[kind];
    for (const change of CHANGES) {
      if (group[change].length === 0) continue;
      lines.push({
        key: `${kind}-${change}`,
        text: t(`editor.save.conflict.${kind}.${change}`, {
          count: group[change].length,
          names: group[change].map((id) => elementName(kind, id, docs)).join(", "),
        }),
      });
    }
  }
  return (
    <ul className="list-disc space-y-1 pl-5 text-sm" data-testid="conflict-changes">
      {lines.map((line) => (
        <li key={line.key}>{line.text}</li>
      ))}
    </ul>
  );
}

/** A save refused because someone saved first: what changed there, and review, merge or overwrite. */
export function ConflictDialog({ session }: { session: SaveSession }) {
  const { t } = useTranslation();
  const conflict = useStore(session, (s) => s.conflict);
  const open = useStore(session, (s) => s.conflictOpen);
  const saving = useStore(session, (s) => s.saving);
  if (!conflict) return null;
  const { server, changes, merged, base } = conflict;
  const docs = [server.document, ...(base ? [base] : [])];
  const actions = session.getState();
  return (
    <Dialog open={open} onOpenChange={actions.openConflict}>
      <DialogContent className="sm:max-w-xl" data-testid="conflict-dialog">
        <DialogHeader>
          <DialogTitle>{t(merged ? "editor.save.conflict.mergedTitle" : "editor.save.conflict.title")}</DialogTitle>
          <DialogDescription>
            {merged
              ? t("editor.save.conflict.mergedDescription", { version: server.version })
              : t("editor.save.conflict.description", { base: conflict.baseVersion, version: server.version })}
          </DialogDescription>
        </DialogHeader>
        {merged ? (
          merged.length === 0 ? (
            <p className="text-sm" data-testid="merge-result">
              {t("editor.save.conflict.mergedClean")}
            </p>
          ) : (
            <div className="grid gap-2" data-testid="merge-result">
              <p className="text-sm">{t("editor.save.conflict.mergeConflicts", { count: merged.length })}</p>
              <ul className="list-disc space-y-1 pl-5 text-sm">
                {merged.map((c) => (
                  <li key={`${c.kind}:${c.id}`}>
                    {t(`editor.save.conflict.reason.${c.reason}`, {
                      kind: t(`editor.save.conflict.kind.${c.kind}`),
                      name:
                        c.kind === "workflow"
                          ? t(`editor.save.conflict.field.${c.id}`)
                          : elementName(c.kind, c.id, docs),
                    })}
                  </li>
                ))}
              </ul>
            </div>
          )
        ) : (
          <div className="grid gap-2">
            <h3 className="text-sm font-medium">{t("editor.save.conflict.serverChanged")}</h3>
            {changes ? (
              <ChangeList changes={changes} docs={docs} />
            ) : (
              <Alert>
                <AlertDescription>{t("editor.save.conflict.baseMissing")}</AlertDescription>
              </Alert>
            )}
            <p className="text-sm text-muted-foreground">{t("editor.save.conflict.choices")}</p>
          </div>
        )}
        <DialogFooter className="flex-wrap gap-2">
          {merged ? (
            <Button onClick={() => actions.openConflict(false)}>{t("editor.save.conflict.checkMerged")}</Button>
          ) : (
            <>
              <Button variant="outline" onClick={actions.review}>
                {t("editor.save.conflict.review")}
              </Button>
              <Button variant="outline" onClick={actions.merge} disabled={!base}>
                {t("editor.save.conflict.merge")}
              </Button>
              <Button variant="destructive" disabled={saving} onClick={() => void actions.overwrite()}>
                {t("editor.save.conflict.overwrite")}
              </Button>
            </>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/** While the server's version is shown for review: says so, and leads back to the choices. */
export function ReviewNotice({ session }: { session: SaveSession }) {
  const { t } = useTranslation();
  const conflict = useStore(session, (s) => s.conflict);
  const open = useStore(session, (s) => s.conflictOpen);
  const preview = useEditorUi((s) => s.preview);
  if (!conflict || open || conflict.merged || preview?.version !== conflict.server.version) return null;
  return (
    <Alert
      role="status"
      data-testid="review-notice"
      className="fixed bottom-4 left-1/2 z-40 w-[min(36rem,calc(100vw-2rem))] -translate-x-1/2 bg-background shadow-lg"
    >
      <EyeIcon aria-hidden />
      <AlertDescription>
        <p>{t("editor.save.conflict.reviewing", { version: conflict.server.version })}</p>
        <div className="mt-2 flex gap-2">
          <Button size="sm" onClick={session.getState().endReview}>
            {t("editor.save.conflict.backToChoices")}
          </Button>
        </div>
      </AlertDescription>
    </Alert>
  );
}
