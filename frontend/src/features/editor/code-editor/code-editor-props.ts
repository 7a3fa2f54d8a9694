import type { ReferenceScope } from "./reference-completions";

export type CodeLanguage = "javascript" | "python" | "json" | "template";

/** A problem the caller found in the text, shown underlined and in the gutter (the JSON view's). */
export interface EditorDiagnostic {
  from: number;
  to: number;
  message: string;
}

/** The shared code editor: controlled text, a language, and the references its text may hold. */
export interface CodeEditorProps {
  value: string;
  onChange?: (value: string) => void;
  language: CodeLanguage;
  /** Completion of {{state.x}} / {{context.x}} and underlining of unknown references; omitted: neither. */
  references?: ReferenceScope;
  readOnly?: boolean;
  "aria-label": string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
  onBlur?: () => void;
  /** Smallest height in lines (default 3). The editor grows with its text and the page around it
   * scrolls: an inner scroll area would be one more stop for keyboard users. */
  minLines?: number;
  "data-testid"?: string;
  /**
   * `field` (default): a setting in a form, growing with its text, with its own undo.
   * `document`: a whole document filling its box (the JSON view): line numbers, folding, a
   * problem gutter, its own scroll area (a tab stop, also when read-only), and no checks of its
   * own (the caller's `diagnostics` are shown).
   */
  variant?: "field" | "document";
  /** The caller's problems in the text (document variant). */
  diagnostics?: readonly EditorDiagnostic[];
  /** Puts the cursor there and focuses the editor; `serial` repeats the request. */
  cursor?: { offset: number; serial: number } | null;
  /** Undo and redo keys go to the caller (the document's history) instead of the editor's own. */
  onUndo?: () => void;
  onRedo?: () => void;
}
