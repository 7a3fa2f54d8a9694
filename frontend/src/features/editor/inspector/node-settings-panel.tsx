// The settings panel: the selected node's label and its settings form, generated from the JSON
// Schema the backend validates the node's settings with (GET /api/node-types). Nothing selected:
// a hint and a node picker; several nodes: how many.
import { useQuery } from "@tanstack/react-query";
import type { TFunction } from "i18next";
import { type ReactNode, useEffect, useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useShallow } from "zustand/react/shallow";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Input } from "@/components/ui/input";
import { Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/lib/error-message";
import { preloadCodeEditor, type ReferenceScope } from "../code-editor/code-editor";
import {
  type DocumentError,
  forEachBodies,
  type SettingPath,
  selectDocument,
  selectNodes,
  selectState,
  useDocument,
  useDocumentStore,
  type WorkflowNode,
} from "../document";
import { ImportedNodeSettings } from "../imported/imported-node-settings";
import { useEditorUi } from "../layout/editor-ui-store";
import { type NodeTypeInfo, nodeTypesQuery } from "./node-type-queries";
import { documentContextKeys } from "./reference-scope";
import { type FieldSpec, type JsonSchema, settingsForm } from "./schema-form";
import { SettingField, SettingsFormProvider } from "./settings-form";
import { useDraft } from "./use-draft";

/** A type's form, built once per schema (the catalog is fetched once): selecting a node only draws it. */
const formCache = new WeakMap<JsonSchema, FieldSpec>();
function formOf(schema: JsonSchema): FieldSpec {
  let form = formCache.get(schema);
  if (!form) {
    form = settingsForm(schema);
    formCache.set(schema, form);
  }
  return form;
}

export function NodeSettingsPanel() {
  const { t } = useTranslation();
  const selected = useEditorUi((s) => s.selectedNodeIds);
  useEffect(() => preloadCodeEditor(), []);
  if (selected.length > 1)
    return (
      <p className="p-4 text-sm text-muted-foreground" data-testid="settings-many">
        {t("editor.inspector.manySelected", { count: selected.length })}
      </p>
    );
  const nodeId = selected[0];
  return nodeId === undefined ? <NodePicker /> : <NodeSettings key={nodeId} nodeId={nodeId} />;
}

/** The label a node is known by: its own label, else its id. */
export function nodeName(node: Pick<WorkflowNode, "id" | "data">): string {
  const label = node.data.label;
  return typeof label === "string" && label.trim() !== "" ? label : node.id;
}

/** The picker's options, kept per node list and language: drawn again only when the nodes change,
 * not each time the picker shows (500 options cost 1,000 translations). Keyed by the language, not
 * by `t`: each mount of the picker (each time a selection is cleared) gets a new `t`. */
const pickerCache = new WeakMap<readonly WorkflowNode[], { language: string; options: ReactNode[] }>();
function pickerOptions(nodes: readonly WorkflowNode[], t: TFunction, language: string): ReactNode[] {
  const kept = pickerCache.get(nodes);
  if (kept && kept.language === language) return kept.options;
  const options = nodes.map((node) => (
    <option key={node.id} value={node.id}>
      {t("editor.inspector.pickNodeOption", { name: nodeName(node), type: t(`editor.nodeTypes.${node.type}.name`) })}
    </option>
  ));
  pickerCache.set(nodes, { language, options });
  return options;
}

/** How long the picker waits before drawing its options when no one reaches for it. */
const PICKER_FILL_DELAY_MS = 500;

function NodePicker() {
  const { t, i18n } = useTranslation();
  const id = useId();
  const all = useDocument(selectNodes);
  const select = useEditorUi((s) => s.select);
  // The picker shows each time the selection is cleared (a click on the canvas's background), most
  // often on the way to another node: 500 options cost 30–65 ms of style and layout. They are drawn
  // when a pointer or the focus reaches the picker (before its list opens), or after a pause.
  const [filled, setFilled] = useState(false);
  useEffect(() => {
    if (filled) return;
    const timer = setTimeout(() => setFilled(true), PICKER_FILL_DELAY_MS);
    return () => clearTimeout(timer);
  }, [filled]);
  const fill = () => setFilled(true);
  const options = filled ? pickerOptions(all, t, i18n.language) : null;
  return (
    <div className="grid gap-3 p-4">
      <p className="text-sm text-muted-foreground" data-testid="settings-hint">
        {t("editor.inspector.noSelection")}
      </p>
      {all.length > 0 && (
        <div className="grid gap-1.5">
          <label htmlFor={id} className="text-sm font-medium">
            {t("editor.inspector.pickNode")}
          </label>
          <select
            id={id}
            data-testid="settings-node-picker"
            className="h-9 rounded-md border border-input bg-transparent px-2 text-sm outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
            value=""
            onChange={(e) => e.target.value && select({ nodeIds: [e.target.value] })}
            onPointerEnter={fill}
            onPointerDown={fill}
            onFocus={fill}
          >
            <option value="">{t("editor.inspector.pickNodePlaceholder")}</option>
            {options}
          </select>
        </div>
      )}
    </div>
  );
}

function NodeSettings({ nodeId }: { nodeId: string }) {
  const { t } = useTranslation();
  const store = useDocumentStore();
  const node = useDocument((s) => selectDocument(s).nodes.find((n) => n.id === nodeId));
  // What completion and underlining need, read so that moving nodes re-renders nothing here.
  const state = useDocument(selectState);
  const contextKeys = useDocument(useShallow((s) => documentContextKeys(selectDocument(s))));
  const inForEachBody = useDocument((s) => forEachBodies(selectDocument(s)).has(nodeId));
  const scope = useMemo<ReferenceScope>(
    () => ({ fields: state, contextKeys, inForEachBody }),
    [state, contextKeys, inForEachBody],
  );
  const select = useEditorUi((s) => s.select);
  const readOnly = useDocument((s) => s.readOnly);
  const fieldListId = useId();
  const refusal = (error: DocumentError) => t(`editor.errors.${error.code}`, error.params ?? {});
  const storedLabel = typeof node?.data.label === "string" ? node.data.label : "";

  if (!node)
    return (
      <p className="p-4 text-sm text-muted-foreground" data-testid="settings-hint">
        {t("editor.inspector.nodeGone")}
      </p>
    );

  const change = (path: SettingPath, value: unknown): string | null => {
    const result = store.getState().dispatch({ type: "update-node-data", nodeId, path, value });
    return result.ok ? null : refusal(result.error);
  };
  const closeGroup = () => store.getState().closeGroup();

  return (
    <div className="grid gap-4 p-4" data-testid="node-settings" data-node-id={nodeId}>
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 className="text-sm font-semibold">{t(`editor.nodeTypes.${node.type}.name`)}</h2>
          <p className="text-xs text-muted-foreground">{t(`editor.nodeTypes.${node.type}.description`)}</p>
          <p className="mt-1 font-mono text-xs text-muted-foreground">{t("editor.inspector.nodeId", { id: nodeId })}</p>
        </div>
        <button
          type="button"
          className="shrink-0 rounded-sm px-2 py-1 text-xs text-muted-foreground underline-offset-2 outline-none hover:underline focus-visible:ring-[3px] focus-visible:ring-ring/60"
          onClick={() => select({ nodeIds: [] })}
          data-testid="settings-deselect"
        >
          {t("editor.inspector.chooseAnother")}
        </button>
      </div>
      {readOnly ? (
        <ImportedNodeSettings node={node} name={nodeName(node)} />
      ) : (
        <EditableSettings
          nodeId={nodeId}
          node={node}
          storedLabel={storedLabel}
          fieldListId={fieldListId}
          scope={scope}
          change={change}
          closeGroup={closeGroup}
        />
      )}
    </div>
  );
}

/** The label and the settings form of a node that can be edited. */
function EditableSettings({
  nodeId,
  node,
  storedLabel,
  fieldListId,
  scope,
  change,
  closeGroup,
}: {
  nodeId: string;
  node: WorkflowNode;
  storedLabel: string;
  fieldListId: string;
  scope: ReferenceScope;
  change(path: SettingPath, value: unknown): string | null;
  closeGroup(): void;
}) {
  const { t } = useTranslation();
  const types = useQuery(nodeTypesQuery);
  const info = types.data?.find((entry) => entry.type === node.type);
  const form = info ? formOf(info.data_schema) : null;
  const state = useDocument(selectState);
  return (
    <>
      <LabelField nodeId={nodeId} stored={storedLabel} />
      <datalist id={fieldListId}>
        {state.map((field) => (
          <option key={field.name} value={field.name} />
        ))}
      </datalist>
      {types.isPending && <Skeleton className="h-40 w-full" />}
      {types.isError && (
        <Alert variant="destructive">
          <AlertDescription>{errorMessage(t, types.error)}</AlertDescription>
        </Alert>
      )}
      {info && form && (
        <SettingsFormProvider value={{ info, data: node.data, scope, change, closeGroup, fieldListId }}>
          <SettingField name="" spec={form} required path={[]} value={node.data} />
        </SettingsFormProvider>
      )}
    </>
  );
}

/** The node's label. Its own component, holding what is typed: a keystroke re-renders this field,
 * not the whole form (the typed text is written after a pause, see use-draft.ts). */
function LabelField({ nodeId, stored }: { nodeId: string; stored: string }) {
  const { t } = useTranslation();
  const store = useDocumentStore();
  const labelId = useId();
  const [labelError, setLabelError] = useState<string | null>(null);
  const label = useDraft(stored, (text) => {
    const result = store.getState().dispatch({ type: "rename-node", nodeId, label: text });
    setLabelError(result.ok ? null : t(`editor.errors.${result.error.code}`, result.error.params ?? {}));
  });
  return (
    <div className="grid gap-1.5">
      <label htmlFor={labelId} className="text-sm font-medium">
        {t("editor.inspector.label")}
      </label>
      <Input
        id={labelId}
        data-testid="settings-label"
        value={label.shown}
        placeholder={nodeId}
        aria-invalid={labelError ? true : undefined}
        aria-describedby={labelError ? `${labelId}-error` : undefined}
        onChange={(e) => label.change(e.target.value)}
        onKeyDown={label.onKeyDown}
        onBlur={() => {
          label.flush();
          store.getState().closeGroup();
        }}
      />
      {labelError && (
        <p id={`${labelId}-error`} className="text-xs text-destructive" data-testid="setting-error" role="status">
          {labelError}
        </p>
      )}
    </div>
  );
}

export type { NodeTypeInfo };
