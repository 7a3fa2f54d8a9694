// The editor's document layer: what the canvas, inspector, state editor, JSON view and versions
// panel use. Everything else in this folder is internal.
export type { OutputRule, ParallelWrite, SettingPath } from "./backend-shared.js";
export { buildGraphModel, factsOf, fieldMentions, findParallelWriters } from "./backend-shared.js";
export { copySelection, PASTE_OFFSET, readClipboard } from "./commands/clipboard.js";
export type { Command, CommandResult, CommandType } from "./commands/command-types.js";
export { type DocumentError, EDITOR_ERROR_CODES, type EditorErrorCode } from "./document-errors.js";
export { documentText, type JsonProblem, parseDocumentText } from "./document-json.js";
export * from "./document-selectors.js";
export {
  createDocumentStore,
  type DocumentSnapshot,
  type DocumentState,
  type DocumentStore,
} from "./document-store.js";
export type * from "./document-types.js";
export type { HistoryEntry } from "./history.js";
export { type JournalOffer, type JournalRecord, journalOffer } from "./journal/journal-record.js";
export { type JournalStorage, openJournalStorage } from "./journal/journal-storage.js";
export { type JournalWriter, startJournalWriter } from "./journal/journal-writer.js";
export { defaultNodeData } from "./node-defaults.js";
export {
  checkText,
  type FieldUsage,
  findUsages,
  forEachBodies,
  nearestName,
  nodeReferences,
  type ReferenceProblem,
  referenceProblems,
  textReferences,
} from "./references.js";
export { DocumentStoreProvider, useDispatch, useDocument, useDocumentStore } from "./use-document.js";
