// Placeholder until the JSON view is built: the document, read-only.
import { documentText, selectDocument, useDocument } from "../document";

export function JsonViewPanel() {
  const document = useDocument(selectDocument);
  return (
    <textarea
      readOnly
      data-testid="workflow-json"
      spellCheck={false}
      value={documentText(document)}
      className="h-full min-h-[60vh] w-full resize-none bg-muted p-3 font-mono text-xs"
    />
  );
}
