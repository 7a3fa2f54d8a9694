// Run one node alone (like n8n's "Execute step" without the steps before it, or Langflow's "Run
// component"): on the state of a superstep of the shown run, or on typed JSON; shows its output and
// the state it would write. Nothing is written to any run; the node's own call does happen.
import { useMutation } from "@tanstack/react-query";
import { PinIcon } from "lucide-react";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ScrollBox } from "@/components/scroll-box";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Label } from "@/components/ui/label";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { JsonField } from "./json-field";
import { runErrorText } from "./run-error-text";
import { formatDuration, jsonText } from "./run-format";
import { useRunSteps } from "./run-queries";
import { useRun } from "./run-store";
import type { NodeRunResult } from "./run-types";

const PRE = "max-h-40 overflow-auto whitespace-pre-wrap break-all rounded-md border bg-muted/40 p-2 font-mono text-xs";

export function NodeRunDialog({ labelOf, document }: { labelOf(nodeId: string): string; document: unknown }) {
  const request = useRun((s) => s.nodeRun);
  const openNodeRun = useRun((s) => s.openNodeRun);
  return (
    <Dialog open={request !== null} onOpenChange={(open) => !open && openNodeRun(null)}>
      {request && (
        <NodeRunForm
          key={`${request.nodeId}:${request.superstep}:${request.iteration?.index ?? ""}`}
          nodeId={request.nodeId}
          superstep={request.superstep}
          iteration={request.iteration}
          labelOf={labelOf}
          document={document}
        />
      )}
    </Dialog>
  );
}

/** Any JSON value (an item may be a number or a string), or null when the text is not JSON. */
function parseJson(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  const value = parseJson(text)?.value;
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function NodeRunForm({
  nodeId,
  superstep,
  iteration,
  labelOf,
  document,
}: {
  nodeId: string;
  superstep: number | null;
  /** A For each iteration to run again: its item (editable) and index. */
  iteration: { item: unknown; index: number } | undefined;
  labelOf(nodeId: string): string;
  document: unknown;
}) {
  const { t } = useTranslation();
  const runId = useRun((s) => s.trace?.runId ?? null);
  const pin = useRun((s) => s.pin);
  const steps = useRunSteps(runId !== null);
  const checkpoints = useMemo(() => (steps.data ?? []).filter((s) => s.state !== null), [steps.data]);
  // "json", or the superstep whose state the node runs on.
  const [source, setSource] = useState<string>(superstep !== null && runId ? String(superstep) : "json");
  const [text, setText] = useState("{}");
  const edited = source === "json" ? parseObject(text) : {};
  const [itemText, setItemText] = useState(() => (iteration ? jsonText(iteration.item) : ""));
  const item = iteration ? parseJson(itemText) : undefined;
  const run = useMutation({
    mutationFn: () =>
      api.runNode<NodeRunResult>({
        document,
        node_id: nodeId,
        ...(source === "json" ? { state: edited } : { from: { run_id: runId, superstep: Number(source) } }),
        ...(iteration && item ? { iteration: { item: item.value, index: iteration.index } } : {}),
      }),
  });
  const result = run.data;
  return (
    <DialogContent className="max-w-2xl" data-testid="node-run-dialog">
      <DialogHeader>
        <DialogTitle>{t("run.nodeRun.title", { node: labelOf(nodeId) })}</DialogTitle>
        <DialogDescription>{t("run.nodeRun.description")}</DialogDescription>
      </DialogHeader>
      <div className="grid max-h-[65vh] gap-3 overflow-y-auto">
        <div className="grid gap-1">
          <Label htmlFor="node-run-source">{t("run.nodeRun.source")}</Label>
          <select
            id="node-run-source"
            className="h-8 rounded-md border bg-background px-2 text-sm"
            value={source}
            onChange={(event) => setSource(event.target.value)}
            data-testid="node-run-source"
          >
            {runId &&
              checkpoints.map((step) => (
                <option key={step.superstep} value={String(step.superstep)}>
                  {t("run.nodeRun.fromStep", { superstep: step.superstep })}
                </option>
              ))}
            <option value="json">{t("run.nodeRun.fromJson")}</option>
          </select>
        </div>
        {source === "json" ? (
          <JsonField
            id="node-run-state"
            label={t("run.nodeRun.state")}
            value={text}
            onChange={setText}
            problem={edited === null ? t("run.input.notObject") : null}
          />
        ) : (
          <ScrollBox className={PRE}>
            {jsonText(checkpoints.find((s) => String(s.superstep) === source)?.state ?? {})}
          </ScrollBox>
        )}
        {iteration && (
          <JsonField
            id="node-run-item"
            label={t("run.nodeRun.item", { index: iteration.index })}
            value={itemText}
            onChange={setItemText}
            problem={item === null ? t("run.nodeRun.itemInvalid") : null}
            className="min-h-16"
          />
        )}
        <div>
          <Button
            size="sm"
            onClick={() => run.mutate()}
            disabled={edited === null || item === null || run.isPending}
            data-testid="node-run-start"
          >
            {t("run.nodeRun.run")}
          </Button>
        </div>
        {run.isError && <p className="text-sm text-destructive">{errorMessage(t, run.error)}</p>}
        {result && (
          <div className="grid gap-2" data-testid="node-run-result" data-status={result.status}>
            <p className="text-sm">
              {t(`run.status.${result.status}`)} · {formatDuration(result.duration_ms)}
              {result.route && ` · ${t("run.nodeRun.route", { label: result.route })}`}
            </p>
            {result.error && (
              <p className="text-sm text-destructive">
                {runErrorText(t, result.error)} {result.error.message}
              </p>
            )}
            {result.output && (
              <>
                <h4 className="text-xs font-medium text-muted-foreground">{t("run.details.output")}</h4>
                <ScrollBox className={PRE} data-testid="node-run-output">
                  {jsonText(result.output)}
                </ScrollBox>
                {result.state ? (
                  <>
                    <h4 className="text-xs font-medium text-muted-foreground">{t("run.nodeRun.wouldWrite")}</h4>
                    <ScrollBox className={PRE}>{jsonText(result.state)}</ScrollBox>
                    <div>
                      <Button
                        variant="outline"
                        size="sm"
                        onClick={() => pin(nodeId, result.output ?? {})}
                        data-testid="node-run-pin"
                      >
                        <PinIcon aria-hidden />
                        {t("run.pins.pinOutput")}
                      </Button>
                    </div>
                  </>
                ) : (
                  <p className="text-xs text-muted-foreground">{t("run.nodeRun.iterationWritesNothing")}</p>
                )}
              </>
            )}
          </div>
        )}
      </div>
    </DialogContent>
  );
}
