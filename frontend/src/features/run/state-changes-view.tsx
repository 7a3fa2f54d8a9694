// For each superstep, what it changed in the state: field, before → after, the reducer, the nodes
// that wrote it; and a way to fork the run from that superstep's checkpoint.
import { GitForkIcon } from "lucide-react";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import type { StateField } from "@/lib/api";
import { shortJson } from "./run-format";
import { useRunSteps } from "./run-queries";
import { useRun } from "./run-store";
import { stateChanges } from "./state-diff";

export function StateChangesView({
  stateSchema,
  labelOf,
  onFork,
}: {
  stateSchema: readonly StateField[];
  labelOf(nodeId: string): string;
  onFork(superstep: number): void;
}) {
  const { t } = useTranslation();
  const steps = useRunSteps(true);
  const trace = useRun((s) => s.trace);
  const revision = useRun((s) => s.revision);
  const ended = useRun((s) => !!s.trace && !["queued", "running"].includes(s.trace.status));
  const reducers = useMemo(() => new Map(stateSchema.map((f) => [f.name, f.reducer ?? "replace"])), [stateSchema]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the trace changes in place; its revision says when
  const changes = useMemo(
    () => (steps.data ? stateChanges(steps.data, reducers, trace) : []),
    [steps.data, reducers, trace, revision],
  );
  if (!trace) return <p className="p-3 text-sm text-muted-foreground">{t("run.trace.empty")}</p>;
  if (steps.isError) return <p className="p-3 text-sm text-destructive">{t("run.state.loadFailed")}</p>;
  if (!steps.data) return <p className="p-3 text-sm text-muted-foreground">{t("common.loading")}</p>;
  return (
    <ol className="grid gap-2 p-3" data-testid="state-changes">
      {changes.map((step) => (
        <li key={step.superstep} className="rounded-md border" data-testid={`state-step-${step.superstep}`}>
          <div className="flex items-center gap-2 border-b bg-muted/40 px-2 py-1 text-xs">
            <span className="font-medium">{t("run.trace.superstep", { superstep: step.superstep })}</span>
            <span className="truncate text-muted-foreground">{step.nodes.map(labelOf).join(", ")}</span>
            {step.checkpointId === null && <span className="text-destructive">{t("run.state.noCheckpoint")}</span>}
            {ended && step.checkpointId !== null && (
              <Button
                variant="ghost"
                size="sm"
                className="ml-auto h-6 px-2 text-xs"
                onClick={() => onFork(step.superstep)}
                data-testid={`state-step-fork-${step.superstep}`}
              >
                <GitForkIcon aria-hidden />
                {t("run.fork.fromHere")}
              </Button>
            )}
          </div>
          {step.changes.length === 0 ? (
            <p className="px-2 py-1 text-xs text-muted-foreground">{t("run.state.noChange")}</p>
          ) : (
            <ul className="divide-y text-xs">
              {step.changes.map((change) => (
                <li
                  key={change.field}
                  className="grid gap-0.5 px-2 py-1"
                  data-testid={`state-change-${step.superstep}-${change.field}`}
                >
                  <div className="flex flex-wrap items-baseline gap-x-2">
                    <span className="font-mono font-medium">{change.field}</span>
                    <span className="text-muted-foreground">
                      {t("run.state.writtenBy", {
                        nodes:
                          change.writers.length > 0 ? change.writers.map(labelOf).join(", ") : t("run.state.input"),
                        reducer: t(`editor.stateSchema.reducers.${change.reducer}`),
                      })}
                    </span>
                  </div>
                  <div className="flex min-w-0 items-baseline gap-1 font-mono">
                    <span className="sr-only">{t("run.state.before")}</span>
                    <span
                      className="min-w-0 truncate text-muted-foreground line-through"
                      title={shortJson(change.before, 2000)}
                    >
                      {shortJson(change.before, 60)}
                    </span>
                    <span aria-hidden>→</span>
                    <span className="sr-only">{t("run.state.after")}</span>
                    <span className="min-w-0 truncate" title={shortJson(change.after, 2000)}>
                      {shortJson(change.after, 60)}
                    </span>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ol>
  );
}
