// The run data the panel reads over HTTP (the events come over the socket).
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api";
import { useRun } from "./run-store";
import type { RunStep } from "./run-types";

/**
 * The checkpointed supersteps read so far, for the shown run only: they never change, so each read
 * asks only for those after them (a long run is not read again whole at every superstep).
 */
let known: { runId: string; steps: RunStep[] } | null = null;

async function readSteps(runId: string): Promise<RunStep[]> {
  const before = known?.runId === runId ? known.steps : [];
  const steps = joinSteps(before, await api.runSteps<RunStep>(runId, before.length));
  known = { runId, steps: steps.filter((step) => step.checkpoint_id !== null) };
  return steps;
}

/**
 * Steps read before, then those read after them. The server lists checkpointed steps first, in the
 * order they were written, then the supersteps still without a checkpoint (running or failed).
 */
export function joinSteps(checkpointed: RunStep[], after: RunStep[]): RunStep[] {
  const seen = new Set(checkpointed.map((step) => step.checkpoint_id));
  return [...checkpointed, ...after.filter((step) => step.checkpoint_id === null || !seen.has(step.checkpoint_id))];
}

/**
 * The shown run's supersteps with the state after each. Read again when a superstep is added or the
 * run changes status, and only while a view that needs them is open.
 */
export function useRunSteps(enabled: boolean) {
  const runId = useRun((s) => s.trace?.runId ?? null);
  // Selected as numbers and text so that other events do not refetch.
  const supersteps = useRun((s) => s.trace?.supersteps.length ?? 0);
  const status = useRun((s) => s.trace?.status ?? null);
  return useQuery({
    queryKey: ["run-steps", runId, supersteps, status],
    queryFn: () => readSteps(runId as string),
    enabled: enabled && runId !== null && status !== "queued",
    placeholderData: (previous) => previous,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
