// The node type catalog the editor reads (GET /api/node-types): for each type, the JSON Schema of
// its `data` generated from the zod schema the validator parses it with, so forms and validator
// never disagree, plus its facts (templates, state fields, outputs). Built once.
import { z } from "zod";
import type { NodeTypeView } from "../../schemas/node-type.schema.js";
import { NODE_TYPES } from "../../schemas/workflow.schema.js";
import { NODE_DATA } from "./node-data.schema.js";
import { NODE_TYPE_FACTS, type NodeTypeFacts } from "./node-type-facts.js";

/**
 * One entry: `data_schema` is the JSON Schema (2020-12) of what may be written in `data`, from the
 * input side of the zod schema (settings with a default are optional and carry it); checks JSON
 * Schema cannot say (the structured-answer schema rules) are left to the validator.
 */
export type NodeTypeInfo = NodeTypeView;

let catalog: NodeTypeInfo[] | undefined;

export function nodeTypeCatalog(): NodeTypeInfo[] {
  catalog ??= NODE_TYPES.map((type) => {
    const facts: NodeTypeFacts = NODE_TYPE_FACTS[type];
    return {
      type,
      name_key: `editor.nodeTypes.${type}.name`,
      description_key: `editor.nodeTypes.${type}.description`,
      data_schema: z.toJSONSchema(NODE_DATA[type], { io: "input" }) as Record<string, unknown>,
      outputs: structuredClone(facts.outputs) as NodeTypeView["outputs"],
      input: facts.input,
      side_effect: facts.sideEffect,
      for_each_body: facts.forEachBody,
      template_settings: [...facts.templates],
      field_settings: facts.fields.map((field) => ({ ...field })),
    };
  });
  return catalog;
}
