import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { workflowsQuery } from "@/features/workflows/workflow-queries";
import { api, type GithubImportBody, type ImportJob, type Workflow } from "@/lib/api";
import { jobRefetchInterval } from "./import-job";

export const importsQuery = queryOptions({ queryKey: ["imports"], queryFn: api.listImports });

/** One job, asked for again every second while it runs; polling stops once it has ended. */
export function importJobQuery(id: string) {
  return queryOptions({
    queryKey: ["imports", id],
    queryFn: () => api.getImport(id),
    // A job that cannot be read (not found, another user's) is not asked for again and again.
    refetchInterval: (query) => (query.state.error ? false : jobRefetchInterval(query.state.data)),
    // A failed job is an answer, not an error to retry; a missing one (404) stays missing.
    retry: false,
  });
}

export type ImportSource = { kind: "github"; body: GithubImportBody } | { kind: "zip"; file: File };

/** Starts an import; the job it answers with is put in the cache so the job view shows it at once. */
export function useStartImport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: ImportSource): Promise<ImportJob> =>
      source.kind === "github" ? api.importFromGithub(source.body) : api.importFromZip(source.file),
    onSuccess: (job) => {
      queryClient.setQueryData(["imports", job.id], job);
      void queryClient.invalidateQueries({ queryKey: importsQuery.queryKey, exact: true });
    },
  });
}

/**
 * Makes a workflow from a graph of a finished import: the workflow is put in the cache (the editor
 * opens it at once), the list of workflows and the job (now kept) are asked for again.
 */
export function useCreateWorkflowFromImport(jobId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (graphId: string): Promise<Workflow> => api.createWorkflowFromImport(jobId, { graph_id: graphId }),
    onSuccess: (workflow) => {
      queryClient.setQueryData(["workflows", workflow.id], workflow);
      void queryClient.invalidateQueries({ queryKey: workflowsQuery.queryKey, exact: true });
      void queryClient.invalidateQueries({ queryKey: ["imports", jobId] });
    },
  });
}
