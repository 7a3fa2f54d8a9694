// What the local journal keeps of an editing session, and what is offered back when the workflow
// is opened again.
import type { DocumentSnapshot, DocumentState } from "../document-store.js";
import type { WorkflowDocument } from "../document-types.js";

export const JOURNAL_FORMAT = 1;

export interface JournalRecord extends DocumentSnapshot {
  format: typeof JOURNAL_FORMAT;
  /** When it was written (ms since the epoch), to tell the person how old it is. */
  writtenAt: number;
}

/** The record for the store as it is, or undefined when there is nothing to keep (nothing loaded, a preview). */
export function journalRecordOf(state: DocumentState, writtenAt: number): JournalRecord | undefined {
  if (state.workflowId === null || state.savedVersion === null || state.readOnly) return undefined;
  return {
    format: JOURNAL_FORMAT,
    workflowId: state.workflowId,
    baseVersion: state.savedVersion,
    writtenAt,
    content: state.content,
    history: { ...state.history, openGroup: null },
    savedEntryId: state.savedEntryId,
  };
}

/** What to offer on opening a workflow that has a journal. */
export interface JournalOffer {
  record: JournalRecord;
  /** The server has a newer version than the one the journalled edits started from. */
  stale: boolean;
}

/**
 * The offer for a journal, given the workflow as the server has it now; undefined when the journal
 * holds nothing the server does not (its document is the server's), so it can be dropped.
 */
export function journalOffer(
  record: JournalRecord | undefined,
  server: { version: number; document: WorkflowDocument },
): JournalOffer | undefined {
  if (!record || record.format !== JOURNAL_FORMAT) return undefined;
  const sameDocument = JSON.stringify(record.content.document) === JSON.stringify(server.document);
  if (sameDocument && record.content.notes.length === 0) return undefined;
  return { record, stale: record.baseVersion !== server.version };
}
