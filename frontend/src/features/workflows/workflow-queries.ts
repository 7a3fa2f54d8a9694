import { queryOptions } from "@tanstack/react-query";
import { api } from "@/lib/api";

export const workflowsQuery = queryOptions({ queryKey: ["workflows"], queryFn: api.listWorkflows });

export function workflowQuery(id: string) {
  return queryOptions({ queryKey: ["workflows", id], queryFn: () => api.getWorkflow(id) });
}
