// The backend modules the editor uses as they are, from their source: the workflow document schema
// (zod), the {{…}} template scanner, the node type facts and the validator's graph model and
// parallel-write analysis. All are pure (zod at most), so the editor parses, scans and reasons
// exactly as the server does instead of keeping a copy.

export {
  declaredOutputLabels,
  type FieldMention,
  factsOf,
  fieldMentions,
  NODE_TYPE_FACTS,
  type NodeTypeFacts,
  type OutputRule,
  type SettingPath,
  stringsIn,
  templateTexts,
  valuesAt,
} from "../../../../../backend/src/engine/nodes/node-type-facts.js";
export {
  parseReference,
  REFERENCE_ROOTS,
  type Reference,
  scanTemplate,
  TemplateError,
  wholeReferenceBody,
} from "../../../../../backend/src/engine/templates/template.js";
export { buildGraphModel, type GraphModel } from "../../../../../backend/src/engine/validator/graph-model.js";
export {
  findParallelWriters,
  type ParallelWrite,
} from "../../../../../backend/src/engine/validator/parallel-writes.js";
export {
  DOCUMENT_LIMITS,
  NODE_TYPES,
  nestingDepth,
  REDUCERS,
  STATE_TYPES,
  stateField,
  type WorkflowDocument,
  workflowDocument,
  workflowEdge,
  workflowNode,
} from "../../../../../backend/src/schemas/workflow.schema.js";
