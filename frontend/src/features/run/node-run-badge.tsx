// A node's part in the run shown in the panel: a ring in the status colour and a badge with the
// status and duration. It subscribes to the run store by itself, so an event re-renders the one
// node it concerns, not the canvas or the node's drawing.
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import { cn } from "@/lib/utils";
import { formatDuration } from "./run-format";
import { type NodeStat, useOptionalRunStore } from "./run-store";
import { type NodeBadge, nodeBadge } from "./run-trace";

const NO_RUN = createStore(() => ({
  trace: null,
  pins: {} as Record<string, unknown>,
  nodeStats: null as Record<string, NodeStat> | null,
}));

export const BADGE_CLASSES: Record<NodeBadge, { ring: string; pill: string }> = {
  running: { ring: "ring-sky-500 animate-pulse", pill: "bg-sky-700 text-white" },
  ok: { ring: "ring-emerald-500", pill: "bg-emerald-700 text-white" },
  error: { ring: "ring-red-600", pill: "bg-red-700 text-white" },
  waiting: { ring: "ring-amber-500", pill: "bg-amber-500 text-black" },
  reused: { ring: "ring-violet-500", pill: "bg-violet-700 text-white" },
  pinned: { ring: "ring-indigo-500", pill: "bg-indigo-700 text-white" },
  skipped: { ring: "ring-transparent", pill: "bg-muted text-muted-foreground" },
  stopped: { ring: "ring-zinc-400", pill: "bg-zinc-600 text-white" },
};

export function NodeRunBadge({
  nodeId,
  nodeType,
  label,
}: {
  nodeId: string;
  nodeType: string;
  label(badge: NodeBadge): string;
}) {
  const store = useOptionalRunStore() ?? NO_RUN;
  // Selected as the visit (a new object only when this node's visit changes) and the badge text.
  const visit = useStore(store, (s) => s.trace?.latest.get(nodeId) ?? null);
  // A pinned node shows its pin before any run: the next editor run will not execute it.
  const badge = useStore(store, (s) => {
    const shown = s.trace ? nodeBadge(s.trace, nodeId, nodeType) : null;
    if (shown && shown !== "skipped") return shown;
    return "pins" in s && s.pins[nodeId] !== undefined ? "pinned" : shown;
  });
  const stat = useStore(store, (s) => ("nodeStats" in s ? s.nodeStats?.[nodeId] : undefined));
  if (stat) return <NodeStatBadge nodeId={nodeId} stat={stat} />;
  if (!badge) return null;
  const duration = visit?.durationMs != null ? formatDuration(visit.durationMs) : null;
  return (
    <>
      <div
        aria-hidden
        className={cn(
          "pointer-events-none absolute -inset-1 rounded-xl ring-2",
          BADGE_CLASSES[badge].ring,
          badge === "skipped" && "opacity-0",
        )}
      />
      <div
        className={cn(
          "canvas-detail absolute -top-3 right-2 flex items-center gap-1 rounded-full px-2 py-0.5 text-[10px] font-medium shadow-sm",
          BADGE_CLASSES[badge].pill,
        )}
        data-testid={`canvas-node-run-${nodeId}`}
        data-run-status={badge}
      >
        <span>{label(badge)}</span>
        {duration && <span className="tabular-nums">· {duration}</span>}
      </div>
    </>
  );
}

/** The heat map: median time, error rate and tokens of a node over the workflow's last runs. */
function NodeStatBadge({ nodeId, stat }: { nodeId: string; stat: NodeStat }) {
  const { t } = useTranslation();
  const errors = Math.round(stat.error_rate * 100);
  const tokens = Math.round(stat.avg_input_tokens + stat.avg_output_tokens);
  return (
    <div
      className={cn(
        "canvas-detail absolute -top-3 right-2 flex items-center gap-1 rounded-full px-2 py-0.5 text-[10px] font-medium shadow-sm",
        errors > 0 ? "bg-red-700 text-white" : "bg-slate-700 text-white",
      )}
      data-testid={`canvas-node-stat-${nodeId}`}
    >
      {stat.median_ms !== null && <span>{t("run.stats.median", { time: formatDuration(stat.median_ms) })}</span>}
      <span>· {t("run.stats.errors", { percent: errors })}</span>
      {tokens > 0 && <span>· {t("run.stats.tokens", { count: tokens })}</span>}
    </div>
  );
}
