// The end of a run's turn (finished, waiting at a Human node, or paused) as the run bus carries it,
// for a hook that waits for its run (`?wait=`). The event that ends a turn is published only once
// the run's row says so (run-executor.ts), so what a caller is told here is already on disk.
import type { StudioEvent } from "../../engine/runtime/events.js";
import type { RunBus } from "./run-bus.js";

/** How a turn ended: its status and what the run gives back with it. */
export interface TurnEnd {
  status: string;
  /** The run's output (ok). */
  output: unknown;
  /** Why it failed, was cancelled, timed out or expired. */
  error: unknown;
  /** The Human form it waits on (waiting). */
  waiting: unknown;
  /** The nodes the next step will run (paused). */
  next: unknown;
}

export interface TurnEndWatch {
  /** Resolves with the turn's end once its event arrives (never rejects). */
  readonly ended: Promise<TurnEnd>;
  /** Whether any of the run's events has arrived: the run has started. */
  started(): boolean;
  /** Stops listening (once the caller has its answer, gave up, or went away). */
  stop(): void;
}

const ENDING_EVENTS: ReadonlySet<string> = new Set(["run_finished", "run_waiting", "run_paused"]);

/** Whether an event of this type ends the run's turn (finished, waiting or paused). */
export function endsTurn(type: string): boolean {
  return ENDING_EVENTS.has(type);
}

/** The turn's end an event says, or null for an event within the turn. */
export function turnEndOf(event: Pick<StudioEvent, "type" | "data">): TurnEnd | null {
  const data = event.data;
  const end = (status: string, fields: Partial<TurnEnd>): TurnEnd => ({
    status,
    output: null,
    error: null,
    waiting: null,
    next: null,
    ...fields,
  });
  switch (event.type) {
    case "run_finished":
      return end(String(data.status), { output: data.output ?? null, error: data.error ?? null });
    case "run_waiting":
      return end("waiting", { waiting: data });
    case "run_paused":
      return end("paused", { next: data.next ?? null });
    default:
      return null;
  }
}

/**
 * Listens to a run's events and resolves once the bus is ready to bring them to this process: an
 * event published from then on is seen. A caller that may have missed the end (a run started
 * before this) reads the run's row after this resolves.
 */
export async function watchTurnEnd(bus: RunBus, runId: string): Promise<TurnEndWatch> {
  let seen = false;
  let settle: (end: TurnEnd) => void = () => {};
  const ended = new Promise<TurnEnd>((resolve) => {
    settle = resolve;
  });
  const unsubscribe = bus.subscribe(runId, (event) => {
    seen = true;
    const end = turnEndOf(event);
    if (end) settle(end);
  });
  try {
    await bus.ready(runId);
  } catch (error) {
    unsubscribe();
    throw error;
  }
  return { ended, started: () => seen, stop: unsubscribe };
}

/** Whether a run with this status is still in its turn (queued or running). */
export function isActive(status: string): boolean {
  return status === "queued" || status === "running";
}

/** How a run's turn ended, from the run as its row shows it (a run that ended before anyone listened). */
export function turnEndOfView(run: { status: string; output: unknown; error: unknown; waiting: unknown }): TurnEnd {
  return { status: run.status, output: run.output, error: run.error, waiting: run.waiting, next: null };
}

/** The turn's end if it comes within `ms`, else null; null at once when `signal` aborts (the caller went away). */
export function endWithin(watch: TurnEndWatch, ms: number, signal: AbortSignal): Promise<TurnEnd | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (end: TurnEnd | null) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", gaveUp);
      resolve(end);
    };
    const gaveUp = () => done(null);
    const timer = setTimeout(gaveUp, ms);
    signal.addEventListener("abort", gaveUp, { once: true });
    void watch.ended.then(done);
  });
}
