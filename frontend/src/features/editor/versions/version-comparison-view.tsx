// What changed from one version to another, as lists (nodes, connections, state fields, the
// workflow's name and description) and as a JSON diff. The canvas shows the same marks.
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { cn } from "@/lib/utils";
import { documentText, type WorkflowDocument } from "../document";
import type { ChangeKind, DocumentComparison } from "./compare-documents";
import { jsonDiff } from "./json-diff";

const MARK_CLASS: Record<ChangeKind, string> = {
  added: "text-emerald-800 dark:text-emerald-300",
  removed: "text-red-800 dark:text-red-300",
  changed: "text-amber-800 dark:text-amber-300",
};

interface Props {
  older: { version: number; document: WorkflowDocument };
  newer: { version: number; document: WorkflowDocument };
  comparison: DocumentComparison;
}

export function VersionComparisonView({ older, newer, comparison }: Props) {
  const { t } = useTranslation();
  const diff = useMemo(() => jsonDiff(documentText(older.document), documentText(newer.document)), [older, newer]);
  const nodeName = (id: string, label?: string) => (label ? `${label} (${id})` : id);
  const nothing =
    comparison.nodes.length +
      comparison.edges.length +
      comparison.state.length +
      comparison.workflow.length +
      comparison.moved.length ===
    0;

  return (
    <div className="flex flex-col gap-3" data-testid="version-comparison">
      <h3 className="text-sm font-semibold">
        {t("editor.versions.compareTitle", { older: older.version, newer: newer.version })}
      </h3>
      {nothing && <p className="text-sm text-muted-foreground">{t("editor.versions.noChanges")}</p>}
      {comparison.workflow.length > 0 && (
        <p className="text-sm" data-testid="compare-workflow">
          {comparison.workflow.map((key) => t(`editor.versions.workflowChanged.${key}`)).join(" · ")}
        </p>
      )}
      {comparison.nodes.length > 0 && (
        <section>
          <h4 className="text-xs font-semibold uppercase text-muted-foreground">{t("editor.versions.nodes")}</h4>
          <ul className="mt-1 flex flex-col gap-1 text-sm">
            {comparison.nodes.map((node) => (
              <li key={node.id} data-testid="compare-node" data-mark={node.mark} data-node-id={node.id}>
                <span className={cn("font-medium", MARK_CLASS[node.mark])}>
                  {t(`editor.versions.mark.${node.mark}`)}
                </span>{" "}
                {nodeName(node.id, node.label)}{" "}
                <span className="text-muted-foreground">({t(`editor.nodeTypes.${node.type}.name`)})</span>
                {node.settings.length > 0 && (
                  <ul className="ml-4 list-disc text-xs text-muted-foreground">
                    {node.settings.map((setting) => (
                      <li key={setting.path} data-testid="compare-setting" data-kind={setting.kind}>
                        {t(`editor.versions.setting.${setting.kind}`, { path: setting.path })}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {comparison.edges.length > 0 && (
        <section>
          <h4 className="text-xs font-semibold uppercase text-muted-foreground">{t("editor.versions.edges")}</h4>
          <ul className="mt-1 flex flex-col gap-1 text-sm">
            {comparison.edges.map((edge) => (
              <li key={edge.id} data-testid="compare-edge" data-mark={edge.mark} data-edge-id={edge.id}>
                <span className={cn("font-medium", MARK_CLASS[edge.mark])}>
                  {t(`editor.versions.mark.${edge.mark}`)}
                </span>{" "}
                {edge.source} → {edge.target}
                {edge.label !== undefined && <span className="text-muted-foreground"> [{edge.label}]</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {comparison.state.length > 0 && (
        <section>
          <h4 className="text-xs font-semibold uppercase text-muted-foreground">{t("editor.versions.state")}</h4>
          <ul className="mt-1 flex flex-col gap-1 text-sm">
            {comparison.state.map((field) => (
              <li key={field.name} data-testid="compare-field" data-mark={field.mark}>
                <span className={cn("font-medium", MARK_CLASS[field.mark])}>
                  {t(`editor.versions.mark.${field.mark}`)}
                </span>{" "}
                {field.name}
                {field.keys.length > 0 && <span className="text-muted-foreground"> ({field.keys.join(", ")})</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {comparison.moved.length > 0 && (
        <p className="text-xs text-muted-foreground">
          {t("editor.versions.moved", { count: comparison.moved.length })}
        </p>
      )}
      <details className="rounded-md border">
        <summary className="cursor-pointer px-2 py-1 text-sm font-medium outline-none focus-visible:ring-[3px] focus-visible:ring-ring/60">
          {t("editor.versions.jsonDiff")}
        </summary>
        {/* A scrolling region must be reachable from the keyboard (WCAG 2.1.1). */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: see above */}
        <pre className="max-h-96 overflow-auto text-[11px] leading-4" data-testid="json-diff" tabIndex={0}>
          {/* As wide as the longest line, so a changed line's colour spans it. */}
          <div className="w-max min-w-full">
            {diff.map((line, index) =>
              line.kind === "folded" ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity beyond their place
                <div key={index} className="bg-muted px-2 text-muted-foreground">
                  {t("editor.versions.folded", { count: line.count })}
                </div>
              ) : (
                <div
                  // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity beyond their place
                  key={index}
                  data-kind={line.kind}
                  className={cn(
                    "whitespace-pre px-2",
                    line.kind === "added" &&
                      "bg-emerald-100 text-emerald-950 dark:bg-emerald-950 dark:text-emerald-100",
                    line.kind === "removed" && "bg-red-100 text-red-950 dark:bg-red-950 dark:text-red-100",
                  )}
                >
                  {line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  "}
                  {line.text}
                </div>
              ),
            )}
          </div>
        </pre>
      </details>
    </div>
  );
}
