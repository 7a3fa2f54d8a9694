// What a refused edit says: a stable code the UI translates (editor.errors.<CODE> in the locale
// files) and the values its message needs. Commands never throw for bad input; they answer this.

export const EDITOR_ERROR_CODES = [
  "EDITOR_READ_ONLY",
  "EDITOR_NOT_LOADED",
  "EDITOR_COMMAND_UNKNOWN",
  "EDITOR_NODE_TYPE_UNKNOWN",
  "EDITOR_NODE_NOT_FOUND",
  "EDITOR_EDGE_NOT_FOUND",
  "EDITOR_NOTE_NOT_FOUND",
  "EDITOR_ID_INVALID",
  "EDITOR_ID_TAKEN",
  "EDITOR_EDGE_EXISTS",
  "EDITOR_EDGE_INTO_START",
  "EDITOR_EDGE_OUT_OF_END",
  "EDITOR_LABEL_INVALID",
  "EDITOR_NAME_INVALID",
  "EDITOR_DESCRIPTION_TOO_LONG",
  "EDITOR_POSITION_INVALID",
  "EDITOR_VALUE_NOT_JSON",
  "EDITOR_DATA_TOO_DEEP",
  "EDITOR_SETTING_PATH_INVALID",
  "EDITOR_STATE_FIELD_NAME_INVALID",
  "EDITOR_STATE_FIELD_EXISTS",
  "EDITOR_STATE_FIELD_NOT_FOUND",
  "EDITOR_STATE_FIELD_IS_NODE_ID",
  "EDITOR_STATE_FIELD_INVALID",
  "EDITOR_NOTE_INVALID",
  "EDITOR_TOO_MANY_NODES",
  "EDITOR_TOO_MANY_EDGES",
  "EDITOR_TOO_MANY_STATE_FIELDS",
  "EDITOR_TOO_MANY_NOTES",
  "EDITOR_NOTHING_SELECTED",
  "EDITOR_CLIPBOARD_EMPTY",
  "EDITOR_CLIPBOARD_NOT_JSON",
  "EDITOR_CLIPBOARD_NOT_WORKFLOW",
  "EDITOR_CLIPBOARD_INVALID",
  "EDITOR_DOCUMENT_INVALID",
  "EDITOR_DOCUMENT_TOO_LARGE",
  "EDITOR_JSON_SYNTAX",
  "EDITOR_JSON_SCHEMA",
  "EDITOR_JOURNAL_FAILED",
] as const;

export type EditorErrorCode = (typeof EDITOR_ERROR_CODES)[number];

export interface DocumentError {
  code: EditorErrorCode;
  params?: Record<string, string | number>;
}

export function documentError(code: EditorErrorCode, params?: DocumentError["params"]): DocumentError {
  return params ? { code, params } : { code };
}

/** Thrown inside a command to abandon it; the store turns it into a refused result. */
export class CommandRefused extends Error {
  readonly error: DocumentError;
  constructor(error: DocumentError) {
    super(error.code);
    this.error = error;
  }
}

export function refuse(code: EditorErrorCode, params?: DocumentError["params"]): never {
  throw new CommandRefused(documentError(code, params));
}
