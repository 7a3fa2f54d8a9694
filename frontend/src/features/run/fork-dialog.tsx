// Fork a run from a superstep's checkpoint: edit the state if needed, see which nodes run next and,
// for each side effect, whether its earlier result is reused or it runs again (chosen per node),
// then start the new run. Nothing of the original run changes.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { JsonField } from "./json-field";
import { jsonText } from "./run-format";
import type { ForkPreview, RunView } from "./run-types";

export interface ForkTarget {
  runId: string;
  superstep: number;
  state: Record<string, unknown>;
}

/** The fields of `edited` that differ from `original` (what the fork request carries). */
export function stateEdits(
  original: Record<string, unknown>,
  edited: Record<string, unknown>,
): Record<string, unknown> {
  const edits: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(edited))
    if (JSON.stringify(value) !== JSON.stringify(original[field])) edits[field] = value;
  return edits;
}

/** The nodes a fork can still run: those reachable from the ones it runs next (loops included). */
export function reachableFrom(
  next: readonly string[],
  edges: readonly { source: string; target: string }[],
): Set<string> {
  const out = new Map<string, string[]>();
  for (const edge of edges) out.set(edge.source, [...(out.get(edge.source) ?? []), edge.target]);
  const seen = new Set<string>(next);
  const queue = [...next];
  while (queue.length > 0) {
    for (const target of out.get(queue.pop() as string) ?? []) {
      if (seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return seen;
}

function parseState(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function ForkDialog({
  target,
  labelOf,
  currentDocument,
  onOpenChange,
  onForked,
}: {
  target: ForkTarget | null;
  labelOf(nodeId: string): string;
  /** The workflow as the editor has it now (the fork may run it instead of the parent's). */
  currentDocument(): { edges: readonly { source: string; target: string }[] };
  onOpenChange(open: boolean): void;
  onForked(run: RunView): void;
}) {
  return (
    <Dialog open={target !== null} onOpenChange={onOpenChange}>
      {target && (
        <ForkForm
          key={`${target.runId}:${target.superstep}`}
          target={target}
          labelOf={labelOf}
          currentDocument={currentDocument}
          onForked={onForked}
        />
      )}
    </Dialog>
  );
}

function ForkForm({
  target,
  labelOf,
  currentDocument,
  onForked,
}: {
  target: ForkTarget;
  labelOf(nodeId: string): string;
  currentDocument(): { edges: readonly { source: string; target: string }[] };
  onForked(run: RunView): void;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(() => jsonText(target.state));
  const [rerun, setRerun] = useState<string[]>([]);
  // Forking after fixing the node that failed is the usual case: run the editor's workflow.
  const [useCurrent, setUseCurrent] = useState(true);
  const [document] = useState(currentDocument);
  const edited = useMemo(() => parseState(text), [text]);
  const body = useMemo(
    () =>
      edited && {
        superstep: target.superstep,
        state: stateEdits(target.state, edited),
        rerun,
        ...(useCurrent ? { document } : {}),
      },
    [edited, target, rerun, useCurrent, document],
  );
  const preview = useQuery({
    queryKey: ["fork-preview", target.runId, body],
    queryFn: () => api.forkPreview<ForkPreview>(target.runId, body as object),
    enabled: body !== null,
    retry: false,
    placeholderData: (previous) => previous,
  });
  const fork = useMutation({
    mutationFn: () => api.forkRun<RunView>(target.runId, body as object),
    onSuccess: onForked,
  });
  // A side effect that finished before the checkpoint and cannot be reached again is not part of the fork.
  const effects = useMemo(() => {
    if (!preview.data) return [];
    const reach = reachableFrom(preview.data.next, document.edges);
    return preview.data.side_effects.filter((effect) => reach.has(effect.node_id));
  }, [preview.data, document]);
  // A reused result the edit may have made stale (the node reads a changed field, or its settings
  // changed) is checked to run again once, when it first shows; the user can still uncheck it.
  const suggested = useRef(new Set<string>());
  useEffect(() => {
    const stale = effects.filter(
      (effect) =>
        effect.action === "reuse" &&
        (effect.reads_edited.length > 0 || effect.settings_changed) &&
        !suggested.current.has(effect.node_id),
    );
    if (stale.length === 0) return;
    for (const effect of stale) suggested.current.add(effect.node_id);
    setRerun((current) => [...new Set([...current, ...stale.map((effect) => effect.node_id)])]);
  }, [effects]);
  const toggle = (nodeId: string, again: boolean) =>
    setRerun((current) => (again ? [...current, nodeId] : current.filter((id) => id !== nodeId)));
  return (
    <DialogContent className="max-w-2xl" data-testid="fork-dialog">
      <DialogHeader>
        <DialogTitle>{t("run.fork.title", { superstep: target.superstep })}</DialogTitle>
        <DialogDescription>{t("run.fork.description")}</DialogDescription>
      </DialogHeader>
      <div className="grid max-h-[60vh] gap-3 overflow-y-auto">
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={useCurrent}
            onChange={(e) => setUseCurrent(e.target.checked)}
            data-testid="fork-use-current"
          />
          {t("run.fork.useCurrent")}
        </label>
        <JsonField
          id="fork-state"
          label={t("run.fork.state")}
          value={text}
          onChange={setText}
          problem={edited === null ? t("run.input.notObject") : null}
          className="min-h-32"
        />
        {preview.isError && (
          <p className="text-sm text-destructive" data-testid="fork-preview-error">
            {errorMessage(t, preview.error)}
          </p>
        )}
        {preview.data && (
          <div className="grid gap-2" data-testid="fork-preview">
            <p className="text-sm">{t("run.fork.next", { nodes: preview.data.next.map(labelOf).join(", ") || "—" })}</p>
            {effects.length > 0 && (
              <table className="w-full text-sm">
                <thead>
                  <tr className="text-left text-xs text-muted-foreground">
                    <th className="py-1 font-medium">{t("run.fork.sideEffect")}</th>
                    <th className="py-1 font-medium">{t("run.fork.action")}</th>
                    <th className="py-1 font-medium">{t("run.fork.runAgain")}</th>
                  </tr>
                </thead>
                <tbody>
                  {effects.map((effect) => (
                    <tr
                      key={effect.node_id}
                      className="border-t"
                      data-testid={`fork-effect-${effect.node_id}`}
                      data-action={effect.action}
                    >
                      <td className="py-1">
                        {labelOf(effect.node_id)}{" "}
                        <span className="text-xs text-muted-foreground">
                          {t(`editor.nodeTypes.${effect.type}.name`)}
                        </span>
                      </td>
                      <td className="py-1 text-xs">
                        {t(`run.fork.actions.${effect.action}`, { count: effect.parent_results })}
                        {effect.parent_results > 0 && effect.reads_edited.length > 0 && (
                          <span className="block text-amber-700 dark:text-amber-300" data-testid="fork-stale-reads">
                            {t("run.fork.stale.readsEdited", { fields: effect.reads_edited.join(", ") })}
                          </span>
                        )}
                        {effect.parent_results > 0 && effect.settings_changed && (
                          <span className="block text-amber-700 dark:text-amber-300" data-testid="fork-stale-settings">
                            {t("run.fork.stale.settingsChanged")}
                          </span>
                        )}
                      </td>
                      <td className="py-1">
                        {effect.action !== "run" && (
                          <input
                            type="checkbox"
                            aria-label={t("run.fork.runAgainNode", { node: labelOf(effect.node_id) })}
                            checked={rerun.includes(effect.node_id)}
                            onChange={(event) => toggle(effect.node_id, event.target.checked)}
                          />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        )}
        {fork.isError && <p className="text-sm text-destructive">{errorMessage(t, fork.error)}</p>}
      </div>
      <DialogFooter>
        <Button
          onClick={() => fork.mutate()}
          disabled={body === null || fork.isPending || preview.isError}
          data-testid="fork-start"
        >
          {t("run.fork.start")}
        </Button>
      </DialogFooter>
    </DialogContent>
  );
}
