// Two runs of a workflow side by side (GET /api/runs/compare): each state field and, per node,
// status, time, output and tokens; what differs is marked.
import { useQuery } from "@tanstack/react-query";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { cn } from "@/lib/utils";
import type { RunComparison } from "../run/backend-shared";
import { formatDuration, shortJson } from "../run/run-format";
import { shortRunId } from "./run-short-id";

type NodeSide = RunComparison["nodes"][number]["a"];

function side(t: TFunction, node: NodeSide | null): string {
  if (!node) return "—";
  const time = node.duration_ms !== null ? ` · ${formatDuration(node.duration_ms)}` : "";
  const tokens = node.input_tokens + node.output_tokens > 0 ? ` · ${node.input_tokens + node.output_tokens} tok` : "";
  return `${t(`run.status.${node.status}`, { defaultValue: node.status })}${time}${tokens}`;
}

export function CompareRunsDialog({ runs, onClose }: { runs: [string, string] | null; onClose(): void }) {
  const { t } = useTranslation();
  const comparison = useQuery({
    queryKey: ["run-compare", runs],
    queryFn: () => api.compareRuns<RunComparison>((runs as [string, string])[0], (runs as [string, string])[1]),
    enabled: runs !== null,
  });
  const data = comparison.data;
  return (
    <Dialog open={runs !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-4xl" data-testid="compare-dialog">
        <DialogHeader>
          <DialogTitle>{t("runs.compare.title")}</DialogTitle>
          <DialogDescription>{t("runs.compare.description")}</DialogDescription>
        </DialogHeader>
        {comparison.isError && <p className="text-sm text-destructive">{errorMessage(t, comparison.error)}</p>}
        {data && (
          <div className="grid max-h-[65vh] gap-4 overflow-y-auto text-sm">
            <table className="w-full table-fixed">
              <thead>
                <tr className="text-left text-xs text-muted-foreground">
                  <th className="w-40 py-1 font-medium">{t("runs.compare.field")}</th>
                  <th className="py-1 font-mono font-medium">{shortRunId(data.a.id)}</th>
                  <th className="py-1 font-mono font-medium">{shortRunId(data.b.id)}</th>
                </tr>
              </thead>
              <tbody>
                {data.state.map((row) => (
                  <tr
                    key={row.field}
                    className={cn("border-t", !row.equal && "bg-amber-100/60 dark:bg-amber-900/30")}
                    data-testid={`compare-state-${row.field}`}
                    data-equal={row.equal}
                  >
                    <td className="py-1 font-mono text-xs">{row.field}</td>
                    <td className="truncate py-1 font-mono text-xs" title={shortJson(row.a, 2000)}>
                      {shortJson(row.a)}
                    </td>
                    <td className="truncate py-1 font-mono text-xs" title={shortJson(row.b, 2000)}>
                      {shortJson(row.b)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <table className="w-full table-fixed">
              <thead>
                <tr className="text-left text-xs text-muted-foreground">
                  <th className="w-40 py-1 font-medium">{t("runs.compare.node")}</th>
                  <th className="py-1 font-medium">{t("runs.compare.runA")}</th>
                  <th className="py-1 font-medium">{t("runs.compare.runB")}</th>
                </tr>
              </thead>
              <tbody>
                {data.nodes.map((row) => (
                  <tr key={row.node_id} className="border-t align-top" data-testid={`compare-node-${row.node_id}`}>
                    <td className="py-1 font-mono text-xs">{row.node_id}</td>
                    <td className="py-1 text-xs">
                      {side(t, row.a)}
                      {row.a?.output !== undefined && (
                        <span className="block truncate font-mono text-muted-foreground">
                          {shortJson(row.a?.output)}
                        </span>
                      )}
                    </td>
                    <td className="py-1 text-xs">
                      {side(t, row.b)}
                      {row.b?.output !== undefined && (
                        <span className="block truncate font-mono text-muted-foreground">
                          {shortJson(row.b?.output)}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
