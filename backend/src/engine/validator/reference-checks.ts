// Checks the references: templates well formed, {{state.x}} and written fields naming declared
// state fields, {{item}} and {{index}} only inside a For each body.
import { VALIDATION_CATALOG } from "../../core/errors.js";
import { findReferencesDeep, parseReference, TemplateError, wholeReferenceBody } from "../templates/template.js";
import { templatesOf, writesOf } from "./node-facts.js";
import { type ProblemList, problem } from "./problem-list.js";
import type { StateFields } from "./state-field-checks.js";
import type { TimeSlicer } from "./time-slicer.js";
import type { TypedNode } from "./validation-types.js";

export async function checkReferences(
  typed: Map<string, TypedNode>,
  fields: StateFields,
  forEachBodies: Map<string, string>,
  problems: ProblemList,
  slicer: TimeSlicer,
): Promise<void> {
  const bodies = new Set(forEachBodies.values());
  const checkField = (name: string, node: TypedNode, path: string) => {
    if (!fields.byName.has(name)) {
      problems.push(
        problem("STATE_REFERENCE_UNKNOWN", { node_id: node.id, path }, `"${name}" is not a declared state field.`),
      );
    }
  };
  for (const node of typed.values()) {
    if (slicer.due()) await slicer.pause();
    let references: ReturnType<typeof findReferencesDeep> = [];
    try {
      references = findReferencesDeep(templatesOf(node));
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      problems.push(
        problem("TEMPLATE_INVALID", { node_id: node.id }, `${VALIDATION_CATALOG.TEMPLATE_INVALID} (${error.message})`),
      );
    }
    for (const reference of references) {
      if (reference.root === "state" && reference.path[0]) checkField(reference.path[0], node, "data");
      if ((reference.root === "item" || reference.root === "index") && !bodies.has(node.id)) {
        problems.push(problem("ITEM_REFERENCE_OUTSIDE_FOR_EACH", { node_id: node.id }));
      }
    }
    for (const name of writesOf(node)) checkField(name, node, "data.output_field");
    if (node.type === "start") for (const name of node.data.inputs ?? []) checkField(name, node, "data.inputs");
    if (node.type === "end") for (const name of node.data.outputs ?? []) checkField(name, node, "data.outputs");
    if (node.type === "condition") {
      for (const rule of node.data.rules)
        for (const c of rule.conditions) checkField(c.field.split(".")[0] as string, node, "data.rules");
    }
    if (node.type === "for_each") {
      const reference = parseReference(wholeReferenceBody(node.data.items) ?? "");
      if (reference.root === "state") checkField(reference.path[0] as string, node, "data.items");
    }
  }
}
