// The run panel under the canvas: the input, Run / One step / Continue / Cancel, the run's status
// (announced to screen readers), a waiting run's form, the trace and the state changes, and the
// details of the visit picked in the trace. The canvas shows the same run on its nodes and edges.
import { ChevronDownIcon, ChevronUpIcon, PlayIcon, SkipForwardIcon, SquareIcon, StepForwardIcon } from "lucide-react";
import { Tabs } from "radix-ui";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useStore } from "zustand";
import { Button } from "@/components/ui/button";
import { api, type Workflow } from "@/lib/api";
import { errorCode } from "@/lib/error-message";
import { cn } from "@/lib/utils";
import { selectDocument, selectIsDirty, selectSavedVersion, useDocument, useDocumentStore } from "../editor/document";
import { contextSchemaText, importedOf } from "../editor/imported/imported-workflow";
import { useEditorUi } from "../editor/layout/editor-ui-store";
import type { FormProblem } from "./backend-shared";
import { ForkDialog, type ForkTarget } from "./fork-dialog";
import { HumanForm } from "./human-form";
import { NodeRunDialog } from "./node-run-dialog";
import { useRunFromUrl } from "./open-run-from-url";
import { PinsList } from "./pins-list";
import { runErrorDetails, runErrorText } from "./run-error-text";
import { draftFrom, inputFields, RunInputForm, readInput } from "./run-input-form";
import { readInputHistory, rememberInput } from "./run-input-history";
import { type NodeStat, type RunTab, useRun, useRunStore } from "./run-store";
import { isRunActive } from "./run-trace";
import type { RunStep } from "./run-types";
import { StateChangesView } from "./state-changes-view";
import { TraceList } from "./trace-list";
import { VisitDetails } from "./visit-details";

const TABS: RunTab[] = ["input", "trace", "state"];

export function RunPanel({ workflow }: { workflow: Workflow }) {
  const { t } = useTranslation();
  const workflowId = workflow.id;
  useRunFromUrl(workflow);
  const store = useRunStore();
  const document = useDocument(selectDocument);
  const savedVersion = useDocument(selectSavedVersion);
  const dirty = useDocument(selectIsDirty);
  const status = useRun((s) => s.trace?.status ?? null);
  const runId = useRun((s) => s.trace?.runId ?? null);
  const waiting = useRun((s) => s.trace?.waiting ?? null);
  const runError = useRun((s) => (s.trace && !isRunActive(s.trace.status) ? s.trace.error : null));
  const pending = useRun((s) => s.pending);
  const connection = useRun((s) => s.connection);
  const actionError = useRun((s) => s.actionError);
  const tab = useRun((s) => s.tab);
  const [statsOn, setStatsOn] = useState(false);
  const expanded = useRun((s) => s.expanded);
  const setExpanded = useRun((s) => s.setExpanded);
  const [source, setSource] = useState<"auto" | "draft" | "saved">("auto");
  const [history, setHistory] = useState(() => readInputHistory(workflowId));
  const fields = useMemo(() => {
    const start = document.nodes.find((n) => n.type === "start");
    return inputFields(document.state, start?.data.inputs);
  }, [document]);
  // An imported graph takes any JSON object (its runtime context under __context__): raw JSON only.
  const imported = importedOf(document);
  const [draft, setDraft] = useState(() => draftFrom(fields, history[0] ?? {}, imported !== null));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [forkTarget, setForkTarget] = useState<ForkTarget | null>(null);
  // Names and the state schema as the canvas shows them: a version being previewed (a run opened
  // from the runs page) may differ from the document being edited.
  const preview = useEditorUi((s) => s.preview);
  const ownStore = useDocumentStore();
  const shown = useStore(preview?.store ?? ownStore, selectDocument);
  const labels = useMemo(
    () =>
      new Map(shown.nodes.map((n) => [n.id, typeof n.data.label === "string" && n.data.label ? n.data.label : n.id])),
    [shown],
  );
  const labelOf = useCallback((nodeId: string) => labels.get(nodeId) ?? nodeId, [labels]);
  const nodeIds = useMemo(() => new Set(document.nodes.map((n) => n.id)), [document]);
  const selectedNode = useEditorUi((s) => (s.selectedNodeIds.length === 1 ? s.selectedNodeIds[0] : undefined));
  const selectedRunnable = selectedNode !== undefined && nodeIds.has(selectedNode);
  const chosenSource = source === "auto" ? (dirty || savedVersion === null ? "draft" : "saved") : source;
  const active = status !== null && isRunActive(status);

  const run = useCallback(
    (mode: "full" | "step") => {
      const read = readInput(fields, draft);
      setExpanded(true);
      if (!read.ok) {
        setProblems(read.problems);
        store.getState().setTab("input");
        return;
      }
      setProblems({});
      setHistory(rememberInput(workflowId, read.input));
      store.getState().start({ source: chosenSource, input: read.input, mode });
    },
    [fields, draft, store, workflowId, chosenSource, setExpanded],
  );

  // Ctrl/⌘+Enter runs, as in n8n, Dify and Sim.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.defaultPrevented) return;
      if (active || pending) return;
      event.preventDefault();
      run("full");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [run, active, pending]);

  const openFork = useCallback(
    async (superstep: number) => {
      if (!runId) return;
      try {
        const steps = await api.runSteps<RunStep>(runId);
        const step = steps.find((s) => s.superstep === superstep && s.state);
        if (step?.state) setForkTarget({ runId, superstep, state: step.state });
        else store.setState({ actionError: { code: "RUN_CHECKPOINT_NOT_FOUND", message: "" } });
      } catch (error) {
        store.setState({ actionError: { code: errorCode(error) ?? "NETWORK", message: "" } });
      }
    },
    [runId, store],
  );

  const humanProblems: FormProblem[] =
    actionError?.code === "HUMAN_INPUT_INVALID" && Array.isArray(actionError.details)
      ? (actionError.details as FormProblem[])
      : [];

  return (
    <section
      className="flex min-h-0 flex-col border-t bg-background"
      data-testid="run-panel"
      aria-label={t("run.panel")}
    >
      <div className="flex flex-wrap items-center gap-2 px-3 py-1.5">
        <Button
          variant="ghost"
          size="sm"
          className="h-7 px-2"
          onClick={() => setExpanded(!expanded)}
          aria-expanded={expanded}
          data-testid="run-panel-toggle"
        >
          {expanded ? <ChevronDownIcon aria-hidden /> : <ChevronUpIcon aria-hidden />}
          {t("run.panel")}
        </Button>
        <select
          aria-label={t("run.source.label")}
          className="h-7 rounded-md border bg-background px-2 text-xs"
          value={chosenSource}
          onChange={(event) => setSource(event.target.value as "draft" | "saved")}
          data-testid="run-source"
        >
          <option value="draft">{t("run.source.draft")}</option>
          {savedVersion !== null && <option value="saved">{t("run.source.saved", { version: savedVersion })}</option>}
        </select>
        <Button
          size="sm"
          className="h-7"
          onClick={() => run("full")}
          disabled={active || pending}
          data-testid="run-start"
          title={t("run.actions.runHint")}
        >
          <PlayIcon aria-hidden />
          {t("run.actions.run")}
        </Button>
        {/* An imported graph runs whole in its sandbox: One step does not apply to it. */}
        {imported === null && (
          <Button
            variant="outline"
            size="sm"
            className="h-7"
            onClick={() => (status === "paused" ? store.getState().continueRun() : run("step"))}
            disabled={active || pending}
            data-testid="run-step"
          >
            <StepForwardIcon aria-hidden />
            {t("run.actions.step")}
          </Button>
        )}
        <Button
          variant="ghost"
          size="sm"
          className="h-7"
          // An imported graph runs as a whole in its sandbox: no node alone.
          disabled={!selectedRunnable || imported !== null}
          title={imported ? t("editor.imported.noNodeRun") : t("run.nodeRun.toolbarHint")}
          onClick={() =>
            selectedNode &&
            store.getState().openNodeRun({
              nodeId: selectedNode,
              superstep: store.getState().trace?.latest.get(selectedNode)
                ? Math.max(0, (store.getState().trace?.latest.get(selectedNode)?.superstep ?? 1) - 1)
                : null,
            })
          }
          data-testid="run-node-alone"
        >
          {t("run.nodeRun.open")}
        </Button>
        <label className="flex items-center gap-1 text-xs" title={t("run.stats.hint")}>
          <input
            type="checkbox"
            checked={statsOn}
            onChange={async (event) => {
              const on = event.target.checked;
              setStatsOn(on);
              if (!on) return store.getState().showNodeStats(null);
              try {
                const stats = await api.nodeStats<{ nodes: NodeStat[] }>(workflowId, 20);
                store.getState().showNodeStats(Object.fromEntries(stats.nodes.map((n) => [n.node_id, n])));
              } catch (error) {
                setStatsOn(false);
                store.setState({ actionError: { code: errorCode(error) ?? "NETWORK", message: "" } });
              }
            }}
            data-testid="run-stats-toggle"
          />
          {t("run.stats.toggle")}
        </label>
        {status === "paused" && (
          <Button
            variant="outline"
            size="sm"
            className="h-7"
            onClick={() => store.getState().continueToEnd()}
            disabled={pending}
            data-testid="run-continue"
          >
            <SkipForwardIcon aria-hidden />
            {t("run.actions.continue")}
          </Button>
        )}
        {status !== null && (active || status === "waiting" || status === "paused") && (
          <Button
            variant="outline"
            size="sm"
            className="h-7"
            onClick={() => store.getState().cancel()}
            data-testid="run-cancel"
          >
            <SquareIcon aria-hidden />
            {t("run.actions.cancel")}
          </Button>
        )}
        <div className="ml-auto flex items-center gap-2 text-xs">
          {connection === "reconnecting" && (
            <span className="text-amber-700 dark:text-amber-300" data-testid="run-reconnecting">
              {t("run.connection.reconnecting")}
            </span>
          )}
          {status && (
            <span
              className={cn(
                "rounded-full px-2 py-0.5 font-medium",
                status === "ok" && "bg-emerald-700 text-white",
                status === "error" && "bg-red-700 text-white",
                (status === "waiting" || status === "paused") && "bg-amber-500 text-black",
                isRunActive(status) && "bg-sky-700 text-white",
                ["cancelled", "timeout", "expired"].includes(status) && "bg-muted",
              )}
              data-testid="run-status"
              data-status={status}
              data-run-id={runId ?? undefined}
            >
              {t(`run.runStatus.${status}`)}
            </span>
          )}
        </div>
        <div className="sr-only" aria-live="polite" data-testid="run-announcer">
          {status ? t("run.announce", { status: t(`run.runStatus.${status}`) }) : ""}
        </div>
      </div>
      {actionError && actionError.code !== "HUMAN_INPUT_INVALID" && (
        <p
          className="border-t bg-destructive/10 px-3 py-1 text-sm text-destructive"
          role="alert"
          data-testid="run-action-error"
        >
          {runErrorText(t, actionError)}
          {runErrorDetails(actionError).map((line) => (
            <span key={line} className="block font-mono text-xs break-all">
              {line}
            </span>
          ))}
          {Array.isArray(actionError.details) &&
            (actionError.details as { code?: string; message?: string; node_id?: string }[])
              .filter((d) => typeof d?.code === "string")
              .map((d, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the problems are a fixed list
                <span key={i} className="block text-xs">
                  {d.node_id ? `${labelOf(d.node_id)}: ` : ""}
                  {t(`errors.${d.code}`, { defaultValue: d.message ?? d.code })}
                </span>
              ))}
          <button
            type="button"
            className="ml-2 text-xs underline underline-offset-4"
            onClick={() => store.getState().clearError()}
          >
            {t("common.dismiss")}
          </button>
        </p>
      )}
      {expanded && (
        <div className="grid h-[min(20rem,45dvh)] min-h-0 grid-cols-[minmax(0,1fr)_minmax(0,1fr)] border-t">
          <div className="flex min-h-0 flex-col border-r">
            {runError && (
              <p className="border-b px-3 py-1 text-sm text-destructive" data-testid="run-error">
                {runErrorText(t, runError)}
                {runErrorDetails(runError).map((line) => (
                  <span key={line} className="block font-mono text-xs break-all" data-testid="run-error-detail">
                    {line}
                  </span>
                ))}
              </p>
            )}
            <Tabs.Root
              value={tab}
              onValueChange={(v) => store.getState().setTab(v as RunTab)}
              className="flex min-h-0 flex-1 flex-col"
            >
              <Tabs.List aria-label={t("run.tabs.label")} className="flex gap-1 border-b px-2 py-1">
                {TABS.map((name) => (
                  <Tabs.Trigger
                    key={name}
                    value={name}
                    data-testid={`run-tab-${name}`}
                    className="rounded-md px-2 py-0.5 text-xs font-medium text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/60 data-[state=active]:bg-accent data-[state=active]:text-accent-foreground"
                  >
                    {t(`run.tabs.${name}`)}
                  </Tabs.Trigger>
                ))}
              </Tabs.List>
              <Tabs.Content value="input" className="min-h-0 flex-1 overflow-y-auto outline-none">
                <RunInputForm
                  fields={fields}
                  draft={draft}
                  onChange={setDraft}
                  problems={problems}
                  history={history}
                  rawOnly={imported !== null}
                  contextSchema={contextSchemaText(imported)}
                />
                <PinsList labelOf={labelOf} nodeIds={nodeIds} />
              </Tabs.Content>
              <Tabs.Content value="trace" className="min-h-0 flex-1 outline-none">
                <TraceList labelOf={labelOf} />
              </Tabs.Content>
              <Tabs.Content value="state" className="min-h-0 flex-1 overflow-y-auto outline-none">
                <StateChangesView stateSchema={shown.state} labelOf={labelOf} onFork={openFork} />
              </Tabs.Content>
            </Tabs.Root>
          </div>
          <div className="min-h-0 overflow-y-auto">
            {waiting && (
              <HumanForm
                key={`${runId}:${waiting.node_id}`}
                request={waiting}
                pending={pending}
                serverProblems={humanProblems}
                onSubmit={(input) => store.getState().resume(input)}
              />
            )}
            <VisitDetails labelOf={labelOf} onFork={openFork} imported={imported !== null} />
          </div>
        </div>
      )}
      <NodeRunDialog labelOf={labelOf} document={document} />
      <ForkDialog
        target={forkTarget}
        labelOf={labelOf}
        currentDocument={() => document}
        onOpenChange={(open) => !open && setForkTarget(null)}
        onForked={(forked) => {
          setForkTarget(null);
          store.getState().openRun(forked.id, forked.status);
        }}
      />
    </section>
  );
}
