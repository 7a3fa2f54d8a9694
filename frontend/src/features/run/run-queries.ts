// The run data the panel reads over HTTP (the events come over the socket).
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api";
import { useRun } from "./run-store";
import type { RunStep } from "./run-types";

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
    queryFn: () => api.runSteps<RunStep>(runId as string),
    enabled: enabled && runId !== null && status !== "queued",
    placeholderData: (previous) => previous,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
