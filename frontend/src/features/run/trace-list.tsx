// The trace: every node visit in order, grouped by superstep, in a virtual list (a run of ten
// thousand events opens at once). Failed visits can be shown alone, which is how a For each's
// failed iterations are found.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "@/lib/utils";
import { BADGE_CLASSES } from "./node-run-badge";
import { formatDuration } from "./run-format";
import { useRun } from "./run-store";
import { type NodeVisit, type RunTrace, visitBadge } from "./run-trace";

type Row = { kind: "step"; superstep: number } | { kind: "visit"; visit: NodeVisit };

function rowsOf(trace: RunTrace, failedOnly: boolean): Row[] {
  const rows: Row[] = [];
  for (const step of trace.supersteps) {
    const visits = step.visits
      .map((i) => trace.visits[i] as NodeVisit)
      .filter((v) => !failedOnly || v.status === "error");
    if (visits.length === 0) continue;
    rows.push({ kind: "step", superstep: step.superstep });
    for (const visit of visits) rows.push({ kind: "visit", visit });
  }
  return rows;
}

export function TraceList({ labelOf }: { labelOf(nodeId: string): string }) {
  const { t } = useTranslation();
  const trace = useRun((s) => s.trace);
  const revision = useRun((s) => s.revision);
  const selected = useRun((s) => s.selectedVisit);
  const selectVisit = useRun((s) => s.selectVisit);
  const [failedOnly, setFailedOnly] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the trace changes in place; its revision says when
  const rows = useMemo(() => (trace ? rowsOf(trace, failedOnly) : []), [trace, revision, failedOnly]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 28,
    overscan: 10,
  });
  if (!trace) return <p className="p-3 text-sm text-muted-foreground">{t("run.trace.empty")}</p>;
  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex items-center gap-3 border-b px-3 py-1 text-xs">
        <span className="text-muted-foreground" data-testid="trace-count">
          {t("run.trace.count", { count: trace.visits.length })}
        </span>
        <label className="ml-auto flex items-center gap-1">
          <input
            type="checkbox"
            checked={failedOnly}
            onChange={(e) => setFailedOnly(e.target.checked)}
            data-testid="trace-failed-only"
          />
          {t("run.trace.failedOnly")}
        </label>
      </div>
      <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto" data-testid="trace-list">
        <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
          {virtual.getVirtualItems().map((item) => {
            const row = rows[item.index] as Row;
            const style = {
              position: "absolute" as const,
              top: 0,
              left: 0,
              right: 0,
              height: item.size,
              transform: `translateY(${item.start}px)`,
            };
            if (row.kind === "step")
              return (
                <div
                  key={item.key}
                  style={style}
                  className="flex items-center bg-muted/50 px-3 text-xs font-medium text-muted-foreground"
                >
                  {t("run.trace.superstep", { superstep: row.superstep })}
                </div>
              );
            const { visit } = row;
            const badge = visitBadge(visit);
            return (
              <button
                key={item.key}
                type="button"
                style={style}
                onClick={() => selectVisit(visit.index)}
                aria-pressed={selected === visit.index}
                data-testid={`trace-visit-${visit.nodeId}`}
                data-run-status={badge}
                className={cn(
                  "flex items-center gap-2 px-3 text-left text-sm outline-none hover:bg-accent focus-visible:bg-accent",
                  selected === visit.index && "bg-accent",
                )}
              >
                <span className={cn("size-2 shrink-0 rounded-full", BADGE_CLASSES[badge].pill)} aria-hidden />
                <span className="min-w-0 flex-1 truncate">
                  {labelOf(visit.nodeId)}
                  {visit.iteration.includes(".") && (
                    <span className="ml-1 text-xs text-muted-foreground">
                      {t("run.trace.iteration", { iteration: visit.iteration.split(".")[1] })}
                    </span>
                  )}
                </span>
                <span className="text-xs text-muted-foreground">{t(`run.status.${badge}`)}</span>
                <span className="w-14 text-right text-xs tabular-nums text-muted-foreground">
                  {visit.durationMs !== null ? formatDuration(visit.durationMs) : ""}
                </span>
              </button>
            );
          })}
        </div>
      </div>
    </div>
  );
}
