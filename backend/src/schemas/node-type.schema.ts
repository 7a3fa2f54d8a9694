// GET /api/node-types: what the editor needs to draw and configure each node type.
import { z } from "zod";
import { NODE_TYPES } from "./workflow.schema.js";

const outputRule = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("single") }),
  z.object({ kind: z.literal("none") }),
  z.object({ kind: z.literal("fixed"), labels: z.array(z.string()) }),
  z.object({ kind: z.literal("labels"), paths: z.array(z.string()) }),
  z.object({ kind: z.literal("free"), suggestions: z.string() }),
]);

export const nodeTypeView = z.object({
  type: z.enum(NODE_TYPES),
  name_key: z.string(),
  description_key: z.string(),
  data_schema: z.record(z.string(), z.unknown()),
  outputs: outputRule,
  input: z.boolean(),
  side_effect: z.boolean(),
  for_each_body: z.boolean(),
  template_settings: z.array(z.string()),
  field_settings: z.array(z.object({ path: z.string(), form: z.enum(["name", "path", "key"]), writes: z.boolean() })),
});
export type NodeTypeView = z.infer<typeof nodeTypeView>;
