import type { ReferenceScope } from "./reference-completions";

export type CodeLanguage = "javascript" | "python" | "json" | "template";

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
}
