// The run panel's store, one per open editor: the run being shown, its trace, the socket's state and
// what the panel has selected. Events go into the trace as they arrive (so the seq to follow from
// after a reconnect is always exact); views hear about them once per frame.
import { createContext, createElement, type ReactNode, useContext } from "react";
import { useStore } from "zustand";
import { createStore, type StoreApi } from "zustand/vanilla";
import { api } from "@/lib/api";
import { getSession } from "@/lib/session";
import type { NodeStat } from "./backend-shared";
import { type ConnectionState, RunConnection, type RunConnectionOptions, runSocketUrl } from "./run-connection";
import { type Pins, readPins, writePins } from "./run-pins";
import {
  applyEvents,
  createTrace,
  type EdgeLike,
  isRunActive,
  type RunTrace,
  type TraceGraph,
  traceGraph,
} from "./run-trace";
import type { EventError, RunEvent, RunStatus } from "./run-types";

export type RunTab = "input" | "trace" | "state";

export type { NodeStat } from "./backend-shared";

export interface StartRequest {
  /** The saved version, or the document as the editor has it now (saved or not). */
  source: "saved" | "draft";
  input: Record<string, unknown>;
  mode: "full" | "step";
}

export interface RunPanelState {
  connection: ConnectionState | "idle";
  trace: RunTrace | null;
  /** Changes whenever the trace does (the trace itself is changed in place). */
  revision: number;
  /** A request was sent and its answer has not come. */
  pending: boolean;
  actionError: EventError | null;
  selectedVisit: number | null;
  tab: RunTab;
  /** The panel shows its body (not only its toolbar). */
  expanded: boolean;
  /** Pinned node outputs, sent with every editor run. */
  pins: Pins;
  /** Per-node figures over the workflow's last runs, drawn on the canvas while set. */
  nodeStats: Record<string, NodeStat> | null;
  /** The node chosen to run alone (the one-node dialog is open while set). */
  /** The one-node run asked for: a node, the superstep whose state it starts from, and for a For each iteration its item. */
  nodeRun: {
    nodeId: string;
    superstep: number | null;
    iteration?: { item: unknown; index: number };
  } | null;
  start(request: StartRequest): void;
  /** Runs the next superstep of a paused run. */
  continueRun(): void;
  /** Continues a paused run superstep after superstep until it ends or waits. */
  continueToEnd(): void;
  resume(input: Record<string, unknown>): void;
  cancel(): void;
  /** Shows an existing run (a fork, a run from the runs page) and follows it. */
  openRun(runId: string, status?: RunStatus): void;
  selectVisit(index: number | null): void;
  setTab(tab: RunTab): void;
  setExpanded(expanded: boolean): void;
  pin(nodeId: string, output: Record<string, unknown>): void;
  unpin(nodeId: string): void;
  openNodeRun(request: RunPanelState["nodeRun"]): void;
  showNodeStats(stats: RunPanelState["nodeStats"]): void;
  clearError(): void;
  dispose(): void;
}

export interface RunStoreDeps {
  workflowId: string;
  /** The document to run as a draft, and whose edges the trace lights. */
  document(): { nodes: { id: string; type: string }[]; edges: EdgeLike[] } & Record<string, unknown>;
  savedVersion(): number | null;
  onSessionEnded(): void;
  connection?: Partial<Pick<RunConnectionOptions, "url" | "WebSocket" | "retryDelayMs" | "token">>;
  /** Schedules the views' update; the default is the next animation frame. */
  schedule?(flush: () => void): void;
}

export type RunStore = StoreApi<RunPanelState>;

const EVENT_PAGE = 1000;

const nextFrame = (flush: () => void) =>
  typeof requestAnimationFrame === "function" ? requestAnimationFrame(flush) : setTimeout(flush, 16);

export function createRunStore(deps: RunStoreDeps): RunStore {
  let graph: TraceGraph = traceGraph([]);
  let flushing = false;
  let continuing = false;
  const schedule = deps.schedule ?? nextFrame;

  const store = createStore<RunPanelState>()((set, get) => {
    const notify = () => {
      if (flushing) return;
      flushing = true;
      schedule(() => {
        flushing = false;
        const trace = get().trace;
        if (!trace) return;
        set({ revision: trace.revision, ...(isRunActive(trace.status) ? {} : { pending: false }) });
      });
    };

    const showRun = (runId: string, status: RunStatus) => {
      const previous = get().trace;
      if (previous && previous.runId !== runId) connection.forget(previous.runId);
      const { edges, nodes } = deps.document();
      graph = traceGraph(edges, nodes);
      const trace = createTrace(runId, status);
      set({ trace, revision: trace.revision, selectedVisit: null, tab: "trace", expanded: true });
    };

    const connection = new RunConnection({
      url: deps.connection?.url ?? (typeof location === "undefined" ? "" : runSocketUrl(location)),
      token: deps.connection?.token ?? (() => getSession()?.token ?? null),
      WebSocket: deps.connection?.WebSocket,
      retryDelayMs: deps.connection?.retryDelayMs,
      lastSeq: (runId) => (get().trace?.runId === runId ? (get().trace?.lastSeq ?? 0) : 0),
      onStarted: (runId) => {
        showRun(runId, "queued");
        set({ pending: true });
      },
      onEvent: (event: RunEvent) => {
        const trace = get().trace;
        if (!trace || !applyEvents(trace, [event], graph)) return;
        notify();
        if (event.type === "run_paused" && continuing) connection.send({ type: "continue", run_id: trace.runId });
        else if (event.type === "run_finished" || event.type === "run_waiting") continuing = false;
      },
      onError: (error) => {
        continuing = false;
        set({ actionError: error, pending: false });
      },
      onState: (state) => set({ connection: state }),
      onSessionEnded: deps.onSessionEnded,
    });

    const ownRun = () => get().trace?.runId;

    return {
      connection: "idle",
      trace: null,
      revision: 0,
      pending: false,
      actionError: null,
      selectedVisit: null,
      tab: "input",
      expanded: false,
      pins: readPins(deps.workflowId),
      nodeRun: null,
      nodeStats: null,
      start: ({ source, input, mode }) => {
        continuing = false;
        // The last run's trace goes at once: what the panel and canvas show next is the new run.
        const previous = get().trace;
        if (previous) connection.forget(previous.runId);
        set({ pending: true, actionError: null, trace: null, selectedVisit: null });
        const version = deps.savedVersion();
        const pins = Object.keys(get().pins).length > 0 ? { pins: get().pins } : {};
        if (source === "saved" && version !== null)
          connection.send({ type: "start", workflow_id: deps.workflowId, version, input, mode, ...pins });
        else connection.send({ type: "start_document", document: deps.document(), input, mode, ...pins });
      },
      continueRun: () => {
        const runId = ownRun();
        if (!runId) return;
        continuing = false;
        set({ pending: true, actionError: null });
        connection.send({ type: "continue", run_id: runId });
      },
      continueToEnd: () => {
        const runId = ownRun();
        if (!runId) return;
        continuing = true;
        set({ pending: true, actionError: null });
        connection.send({ type: "continue", run_id: runId });
      },
      resume: (input) => {
        const runId = ownRun();
        if (!runId) return;
        set({ pending: true, actionError: null });
        connection.send({ type: "resume", run_id: runId, input });
      },
      cancel: () => {
        const runId = ownRun();
        if (!runId) return;
        set({ actionError: null });
        connection.send({ type: "cancel", run_id: runId });
      },
      openRun: (runId, status = "queued") => {
        showRun(runId, status);
        const trace = get().trace as RunTrace;
        // The events so far in pages over HTTP (a run of thousands opens at once), then the socket
        // follows from the last one.
        void (async () => {
          try {
            for (;;) {
              const page = await api.runEvents<RunEvent>(runId, trace.lastSeq, EVENT_PAGE);
              if (get().trace !== trace) return;
              if (applyEvents(trace, page, graph)) notify();
              if (page.length < EVENT_PAGE) break;
            }
          } catch {
            // The socket's own catch-up sends what was not read.
          }
          if (get().trace === trace) connection.follow(runId, trace.lastSeq);
        })();
      },
      selectVisit: (selectedVisit) => set({ selectedVisit }),
      setTab: (tab) => set({ tab }),
      setExpanded: (expanded) => set({ expanded }),
      pin: (nodeId, output) => {
        const pins = { ...get().pins, [nodeId]: output };
        writePins(deps.workflowId, pins);
        set({ pins });
      },
      unpin: (nodeId) => {
        const { [nodeId]: _dropped, ...pins } = get().pins;
        writePins(deps.workflowId, pins);
        set({ pins });
      },
      openNodeRun: (nodeRun) => set({ nodeRun }),
      showNodeStats: (nodeStats) => set({ nodeStats }),
      clearError: () => set({ actionError: null }),
      dispose: () => connection.close(),
    };
  });
  return store;
}

const RunStoreContext = createContext<RunStore | null>(null);

export function RunStoreProvider({ store, children }: { store: RunStore; children: ReactNode }) {
  return createElement(RunStoreContext.Provider, { value: store }, children);
}

export function useRunStore(): RunStore {
  const store = useContext(RunStoreContext);
  if (!store) throw new Error("useRun needs a RunStoreProvider above it");
  return store;
}

/** The run store if there is one (a version preview canvas outside the editor has none). */
export function useOptionalRunStore(): RunStore | null {
  return useContext(RunStoreContext);
}

export function useRun<T>(selector: (state: RunPanelState) => T): T {
  return useStore(useRunStore(), selector);
}
