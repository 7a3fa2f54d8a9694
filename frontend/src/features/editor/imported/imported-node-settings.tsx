// The settings panel of an imported workflow's node: nothing to edit. It names the graph's own
// node, where its function is (file:line), the subgraph it is in, and shows its Python source in
// a read-only code editor (selectable and copyable, a tab stop of its own).
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { CodeEditor } from "../code-editor/code-editor";
import type { WorkflowNode } from "../document";
import { importedNodeCode, importedNodeInfo } from "./imported-workflow";

export function ImportedNodeSettings({ node, name }: { node: WorkflowNode; name: string }) {
  const { t } = useTranslation();
  const id = useId();
  const info = importedNodeInfo(node);
  return (
    <div className="grid gap-3" data-testid="imported-node-settings">
      <p className="text-xs text-muted-foreground">{t("editor.imported.nodeReadOnly")}</p>
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
        <dt className="text-muted-foreground">{t("editor.imported.label")}</dt>
        <dd className="break-all" data-testid="imported-node-label">
          {name}
        </dd>
        {info && (
          <>
            <dt className="text-muted-foreground">{t("editor.imported.graphNode")}</dt>
            <dd className="font-mono text-xs break-all" data-testid="imported-node-id">
              {info.node}
            </dd>
            <dt className="text-muted-foreground">{t("editor.imported.source")}</dt>
            <dd className="font-mono text-xs break-all" data-testid="imported-node-location">
              {info.location ?? t("editor.imported.noLocation")}
            </dd>
            {info.subgraph && (
              <>
                <dt className="text-muted-foreground">{t("editor.imported.subgraph")}</dt>
                <dd className="font-mono text-xs break-all" data-testid="imported-node-subgraph">
                  {info.subgraph}
                </dd>
              </>
            )}
          </>
        )}
      </dl>
      {node.type === "code" && (
        <div className="grid gap-1.5">
          <p id={id} className="text-sm font-medium">
            {t("editor.imported.code")}
          </p>
          <CodeEditor
            value={importedNodeCode(node)}
            language="python"
            readOnly
            aria-label={t("editor.imported.codeOf", { name })}
            aria-describedby={id}
            minLines={6}
            data-testid="imported-node-code"
          />
        </div>
      )}
    </div>
  );
}
