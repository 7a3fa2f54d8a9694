// One node visit of the trace: status, duration, iteration, its input (the state before its
// superstep), output, error, the LLM tokens as they stream, and whether its result was reused.
import { GitForkIcon, PinIcon, PinOffIcon, PlayIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { ScrollBox } from "@/components/scroll-box";
import { Button } from "@/components/ui/button";
import { runErrorText } from "./run-error-text";
import { formatDuration, jsonText } from "./run-format";
import { useRunSteps } from "./run-queries";
import { useRun } from "./run-store";
import { iterationIndex, visitBadge } from "./run-trace";

function Section({ title, children, testId }: { title: string; children: React.ReactNode; testId?: string }) {
  return (
    <section className="grid gap-1" data-testid={testId}>
      <h4 className="text-xs font-medium text-muted-foreground">{title}</h4>
      {children}
    </section>
  );
}

const PRE = "max-h-48 overflow-auto whitespace-pre-wrap break-all rounded-md border bg-muted/40 p-2 font-mono text-xs";

export function VisitDetails({
  labelOf,
  onFork,
  imported = false,
}: {
  labelOf(nodeId: string): string;
  onFork(superstep: number): void;
  /** An imported graph's run: it is not forked, its nodes do not run alone and are not pinned (its sandbox runs it whole). */
  imported?: boolean;
}) {
  const { t } = useTranslation();
  const selected = useRun((s) => s.selectedVisit);
  const visit = useRun((s) => (s.selectedVisit === null ? null : (s.trace?.visits[s.selectedVisit] ?? null)));
  const ended = useRun((s) => !!s.trace && !["queued", "running"].includes(s.trace.status));
  const steps = useRunSteps(visit !== null);
  const pinned = useRun((s) => (visit ? s.pins[visit.nodeId] !== undefined : false));
  const pin = useRun((s) => s.pin);
  const unpin = useRun((s) => s.unpin);
  const openNodeRun = useRun((s) => s.openNodeRun);
  if (selected === null || !visit) return <p className="p-3 text-sm text-muted-foreground">{t("run.details.pick")}</p>;
  const badge = visitBadge(visit);
  // A For each iteration runs alone on its item, and is not pinned (the For each's output is).
  const index = iterationIndex(visit);
  const before = steps.data?.filter((s) => s.superstep < visit.superstep && s.state).at(-1);
  return (
    <div className="grid gap-3 p-3" data-testid="visit-details" data-node-id={visit.nodeId}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-semibold">{labelOf(visit.nodeId)}</h3>
        <span className="text-xs text-muted-foreground">{visit.nodeId}</span>
        <span className="rounded-full bg-muted px-2 py-0.5 text-xs" data-testid="visit-status">
          {t(`run.status.${badge}`)}
        </span>
        {visit.durationMs !== null && <span className="text-xs tabular-nums">{formatDuration(visit.durationMs)}</span>}
        <span className="text-xs text-muted-foreground">
          {t("run.trace.superstep", { superstep: visit.superstep })}
          {index !== null && ` · ${t("run.trace.iteration", { iteration: index })}`}
        </span>
        {ended && !imported && visit.superstep > 0 && (
          <Button
            variant="outline"
            size="sm"
            className="ml-auto h-7"
            onClick={() => onFork(visit.superstep - 1)}
            data-testid="visit-fork"
            title={t("run.fork.fromBeforeHint")}
          >
            <GitForkIcon aria-hidden />
            {t("run.fork.fromBefore")}
          </Button>
        )}
      </div>
      <div className="flex flex-wrap gap-2">
        {ended && !imported && (
          <Button
            variant="outline"
            size="sm"
            className="h-7"
            onClick={() =>
              openNodeRun({
                nodeId: visit.nodeId,
                superstep: Math.max(0, visit.superstep - 1),
                ...(index !== null && visit.item !== undefined ? { iteration: { item: visit.item, index } } : {}),
              })
            }
            data-testid="visit-run-alone"
          >
            <PlayIcon aria-hidden />
            {index !== null ? t("run.nodeRun.openIteration") : t("run.nodeRun.open")}
          </Button>
        )}
        {visit.output &&
          index === null &&
          !imported &&
          (pinned ? (
            <Button
              variant="outline"
              size="sm"
              className="h-7"
              onClick={() => unpin(visit.nodeId)}
              data-testid="visit-unpin"
            >
              <PinOffIcon aria-hidden />
              {t("run.pins.unpin")}
            </Button>
          ) : (
            <Button
              variant="outline"
              size="sm"
              className="h-7"
              onClick={() => pin(visit.nodeId, visit.output ?? {})}
              data-testid="visit-pin"
            >
              <PinIcon aria-hidden />
              {t("run.pins.pinOutput")}
            </Button>
          ))}
      </div>
      {visit.reused && <p className="text-xs text-violet-700 dark:text-violet-300">{t("run.details.reused")}</p>}
      {visit.pinned && <p className="text-xs text-indigo-700 dark:text-indigo-300">{t("run.details.pinned")}</p>}
      {visit.error && (
        <Section title={t("run.details.error")} testId="visit-error">
          <p className="text-sm text-destructive">{runErrorText(t, visit.error)}</p>
          {visit.error.message && <ScrollBox className={PRE}>{visit.error.message}</ScrollBox>}
        </Section>
      )}
      {visit.tokens && (
        <Section title={t("run.details.tokens")} testId="visit-tokens">
          <ScrollBox className={PRE}>{visit.tokens}</ScrollBox>
        </Section>
      )}
      {visit.usage && (
        <p className="text-xs text-muted-foreground">
          {t("run.details.usage", { input: visit.usage.input_tokens, output: visit.usage.output_tokens })}
        </p>
      )}
      {visit.item !== undefined && (
        <Section title={t("run.details.item", { index })} testId="visit-item">
          <ScrollBox className={PRE}>{jsonText(visit.item)}</ScrollBox>
        </Section>
      )}
      {visit.output && (
        <Section title={t("run.details.output")} testId="visit-output">
          <ScrollBox className={PRE}>{jsonText(visit.output)}</ScrollBox>
        </Section>
      )}
      <Section title={t("run.details.input")} testId="visit-input">
        {before?.state ? (
          <ScrollBox className={PRE}>{jsonText(before.state)}</ScrollBox>
        ) : (
          <p className="text-xs text-muted-foreground">
            {steps.isFetching ? t("common.loading") : t("run.details.noInput")}
          </p>
        )}
      </Section>
    </div>
  );
}
