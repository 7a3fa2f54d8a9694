// The node type catalog (GET /api/node-types): the JSON Schema of each type's settings, generated
// by the backend from the zod schema its validator parses them with. Fixed for a server build, so
// it is fetched once per session.
import { queryOptions } from "@tanstack/react-query";
import { api } from "@/lib/api";
import type { NodeType } from "../document";
import type { JsonSchema } from "./schema-form";

/** One entry of the catalog (the backend's NodeTypeView, as far as the forms read it). */
export interface NodeTypeInfo {
  type: NodeType;
  name_key: string;
  description_key: string;
  data_schema: JsonSchema;
  template_settings: string[];
  field_settings: { path: string; form: "name" | "path" | "key"; writes: boolean }[];
  for_each_body: boolean;
}

export const nodeTypesQuery = queryOptions({
  queryKey: ["node-types"],
  queryFn: async () => (await api.nodeTypes()) as NodeTypeInfo[],
  staleTime: Number.POSITIVE_INFINITY,
});

/** Whether a setting path (`["rules", 0, "conditions", 1, "value"]`) lies in one of the patterns
 * (`rules.*.conditions.*.value`): equal up to the pattern's length, `*` matching any member. */
export function pathInPatterns(path: readonly (string | number)[], patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    const parts = pattern.split(".");
    if (path.length < parts.length) return false;
    return parts.every((part, i) => part === "*" || part === String(path[i]));
  });
}

/** The editor a string setting gets: code in the node's language, a template, or plain text. */
export function stringEditor(
  info: Pick<NodeTypeInfo, "type" | "template_settings">,
  data: Record<string, unknown>,
  path: readonly (string | number)[],
): "javascript" | "python" | "template" | "text" {
  if (path.length === 1 && path[0] === "code") {
    if (info.type === "code") return data.language === "python" ? "python" : "javascript";
    return "python"; // Tool with kind python
  }
  return pathInPatterns(path, info.template_settings) ? "template" : "text";
}

/** How a setting names a state field: a name, a path whose first name is the field, or not at all. */
export function stateFieldForm(
  info: Pick<NodeTypeInfo, "field_settings">,
  path: readonly (string | number)[],
): "name" | "path" | undefined {
  const found = info.field_settings.find(
    (f) => f.form !== "key" && pathInPatterns(path, [f.path]) && path.length === f.path.split(".").length,
  );
  return found?.form === "key" ? undefined : found?.form;
}

/** Whether a setting names a state field (offered from the declared fields). */
export function namesStateField(info: Pick<NodeTypeInfo, "field_settings">, path: readonly (string | number)[]) {
  return stateFieldForm(info, path) !== undefined;
}
