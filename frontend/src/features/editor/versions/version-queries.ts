// Server data of the versions panel. A version never changes once written, so it is fetched once.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { api, type Version } from "@/lib/api";
import type { WorkflowDocument } from "../document";

/** Versions listed per page. */
export const VERSIONS_PAGE_SIZE = 20;

export function versionsQuery(workflowId: string) {
  return infiniteQueryOptions({
    queryKey: ["workflows", workflowId, "versions"],
    queryFn: ({ pageParam }) => api.listVersions(workflowId, VERSIONS_PAGE_SIZE, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextOffset ?? undefined,
  });
}

export function versionQuery(workflowId: string, number: number) {
  return queryOptions({
    queryKey: ["workflows", workflowId, "versions", number],
    // The server validated the document with the same schema the editor uses when it was saved.
    queryFn: async (): Promise<Omit<Version, "document"> & { document: WorkflowDocument }> =>
      (await api.getVersion(workflowId, number)) as Omit<Version, "document"> & { document: WorkflowDocument },
    staleTime: Number.POSITIVE_INFINITY,
  });
}
