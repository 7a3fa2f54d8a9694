// Pinned outputs of an editor run: a pinned node does not execute, its pinned output is its update.
// Each pin is checked before the run is created, as a real result of the node would be checked,
// so that a bad pin refuses the run instead of failing it half-way. No LangGraph here.
import { AppError } from "../../core/errors.js";
import { checkHumanInput } from "../nodes/human-form.js";
import { writesOf } from "../validator/node-facts.js";
import type { ValidatedWorkflow } from "../validator/validator.js";
import { checkNodeOutput } from "./output-types.js";

export type PinSet = Record<string, Record<string, unknown>>;

/**
 * The node types whose update is plain state fields. Condition and Decision also choose a route,
 * For each and Join steer the run, Start and End do nothing: those are not pinned.
 */
export const PINNABLE_TYPES: ReadonlySet<string> = new Set(["llm", "tool", "code", "send_email", "human", "subgraph"]);

/**
 * Checks every pin against the workflow: the node exists (PIN_NODE_NOT_FOUND), can be pinned
 * (PIN_NODE_NOT_PINNABLE: its type, or it is the body of a For each, which runs once per item),
 * and the output writes only fields the node writes, each with a value that fits the field, and a
 * Human node's answer fits its form (PIN_OUTPUT_INVALID). Returns the pins as a plain object.
 */
export function checkPins(workflow: ValidatedWorkflow, pins: Record<string, unknown>): PinSet {
  const fields = new Map(workflow.document.state.map((field) => [field.name, field]));
  const bodies = new Set(workflow.forEachBodies.values());
  const clean: PinSet = {};
  for (const [nodeId, output] of Object.entries(pins)) {
    const node = workflow.nodes.get(nodeId);
    if (!node) throw new AppError("PIN_NODE_NOT_FOUND", { node_id: nodeId });
    if (!PINNABLE_TYPES.has(node.type) || bodies.has(nodeId)) {
      throw new AppError("PIN_NODE_NOT_PINNABLE", {
        node_id: nodeId,
        type: node.type,
        reason: bodies.has(nodeId) ? "for_each_body" : "type",
      });
    }
    if (output === null || typeof output !== "object" || Array.isArray(output)) {
      throw new AppError("PIN_OUTPUT_INVALID", { node_id: nodeId, reason: "not_an_object" });
    }
    // A Code node without declared outputs may write any state field; other nodes what they name.
    const writable = node.type === "code" && !node.data.outputs ? new Set(fields.keys()) : new Set(writesOf(node));
    const unknown = Object.keys(output).filter((key) => !writable.has(key));
    if (unknown.length > 0) {
      throw new AppError(
        "PIN_OUTPUT_INVALID",
        { node_id: nodeId, reason: "unknown_fields", fields: unknown, writes: [...writable] },
        `The pin of ${nodeId} writes ${unknown.map((k) => `"${k}"`).join(", ")}, which the node does not write.`,
      );
    }
    const update: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(output)) {
      Object.defineProperty(update, key, { value, enumerable: true, writable: true, configurable: true });
    }
    checkNodeOutput(nodeId, update, fields, "PIN_OUTPUT_INVALID");
    // A Human node's pinned answer is checked against its form, as a person's answer would be.
    if (node.type === "human" && Object.hasOwn(update, node.data.output_field)) {
      const problems = checkHumanInput(node.data.fields, update[node.data.output_field]);
      if (problems.length > 0) {
        throw new AppError(
          "PIN_OUTPUT_INVALID",
          { node_id: nodeId, reason: "form", problems },
          `The pinned answer of ${nodeId} does not fit its form: ${problems.map((p) => `${p.field || "answer"} ${p.message}`).join("; ")}.`,
        );
      }
    }
    Object.defineProperty(clean, nodeId, { value: update, enumerable: true, writable: true, configurable: true });
  }
  return clean;
}
