import { useMutation } from "@tanstack/react-query";
import { queryClient } from "@/app/query-client";
import { api, type Workflow, type WorkflowDocument } from "@/lib/api";
import { workflowsQuery } from "./workflow-queries";

function refreshList(): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: workflowsQuery.queryKey });
}

function remember(workflow: Workflow): void {
  queryClient.setQueryData(["workflows", workflow.id], workflow);
}

export function useCreateWorkflow() {
  return useMutation({
    mutationFn: (document: WorkflowDocument) => api.createWorkflow(document),
    onSuccess: async (workflow) => {
      remember(workflow);
      await refreshList();
    },
  });
}

/** Renames by saving the current document with the new name: a new version, refused if someone saved since. */
export function useRenameWorkflow() {
  return useMutation({
    mutationFn: async ({ id, name }: { id: string; name: string }) => {
      const current = await api.getWorkflow(id);
      return (await api.saveWorkflow(id, { ...current.document, name: name.trim() }, current.version)).workflow;
    },
    onSuccess: async (workflow) => {
      remember(workflow);
      await refreshList();
    },
  });
}

/** A new workflow with the current document of another under a new name. */
export function useDuplicateWorkflow() {
  return useMutation({
    mutationFn: async ({ id, name }: { id: string; name: string }) => {
      const current = await api.getWorkflow(id);
      return api.createWorkflow({ ...current.document, name: name.trim() });
    },
    onSuccess: async (workflow) => {
      remember(workflow);
      await refreshList();
    },
  });
}

export function useDeleteWorkflow() {
  return useMutation({
    mutationFn: (id: string) => api.deleteWorkflow(id),
    onSuccess: async (_result, id) => {
      queryClient.removeQueries({ queryKey: ["workflows", id], exact: true });
      await refreshList();
    },
  });
}
