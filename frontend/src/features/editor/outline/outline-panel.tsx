// The outline: the workflow as an accessible tree (role=tree) of nodes and, under each, its
// outgoing connections. It is an editing surface of its own, fully keyboard operable: arrows move,
// Enter shows the node on the canvas, F2 renames, Delete deletes, C connects to another node.
import { type KeyboardEvent, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { cn } from "@/lib/utils";
import { edgesBySource, sourceHandles } from "../canvas/canvas-graph";
import { NODE_ACCENTS, NODE_ICONS } from "../canvas/node-icons";
import {
  type Command,
  canConnect,
  implicitEnds,
  useDocument,
  useDocumentStore,
  type WorkflowEdge,
  type WorkflowNode,
} from "../document";
import { useEditorUi, useEditorUiStore } from "../layout/editor-ui-store";
import { buildOutline, type OutlineItem, visibleItems } from "./outline-model";

export function OutlinePanel() {
  const { t } = useTranslation();
  const store = useDocumentStore();
  const ui = useEditorUiStore();
  const document = useDocument((s) => s.content.document);
  const preview = useEditorUi((s) => s.preview);
  const readOnly = useDocument((s) => s.readOnly) || preview !== null;
  const selected = useEditorUi((s) => s.selectedNodeIds);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [connecting, setConnecting] = useState<string | null>(null);
  const treeRef = useRef<HTMLDivElement>(null);

  const nodeName = (node: WorkflowNode) =>
    typeof node.data.label === "string" && node.data.label ? node.data.label : t(`editor.nodeTypes.${node.type}.name`);
  const outline = useMemo(() => buildOutline(document, implicitEnds(document)), [document]);
  const items = useMemo(() => visibleItems(outline, collapsed), [outline, collapsed]);
  const active = items.find((i) => i.key === activeKey) ?? items[0];
  const byId = useMemo(() => new Map(outline.map((o) => [o.node.id, o.node])), [outline]);
  const nameOf = (id: string) => {
    const node = byId.get(id);
    return node ? nodeName(node) : id;
  };

  const renamingNode = renaming ? document.nodes.find((n) => n.id === renaming) : undefined;
  const connectingNode = connecting ? outline.find((o) => o.node.id === connecting)?.node : undefined;

  const run = (command: Command) => {
    const result = store.getState().dispatch(command);
    if (!result.ok) toast.error(t(`editor.errors.${result.error.code}`, result.error.params ?? {}));
    return result.ok;
  };
  // Focus moves after React has drawn the rows (a new edge, a closed form), not before.
  const [pendingFocus, setPendingFocus] = useState<{ key: string } | null>(null);
  useLayoutEffect(() => {
    if (!pendingFocus) return;
    treeRef.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(pendingFocus.key)}"]`)?.focus();
    setPendingFocus(null);
  }, [pendingFocus]);
  const focusItem = (key: string) => {
    setActiveKey(key);
    setPendingFocus({ key });
  };
  const removeItem = (item: OutlineItem) => {
    if (readOnly || item.implicit) return;
    const index = items.indexOf(item);
    const ok =
      item.kind === "node"
        ? run({ type: "remove", nodeIds: [item.node.id] })
        : run({ type: "disconnect", edgeIds: [(item.edge as WorkflowEdge).id] });
    if (ok) {
      const next = items[index + 1] ?? items[index - 1];
      if (next) focusItem(next.key);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!active || (event.target as HTMLElement).closest("input, select, button")) return;
    const index = items.indexOf(active);
    const key = event.key;
    const move = (to: number) => {
      const item = items[Math.max(0, Math.min(items.length - 1, to))];
      if (item) focusItem(item.key);
    };
    let handled = true;
    if (key === "ArrowDown") move(index + 1);
    else if (key === "ArrowUp") move(index - 1);
    else if (key === "Home") move(0);
    else if (key === "End") move(items.length - 1);
    else if (key === "ArrowRight") {
      if (active.kind === "node" && active.childCount > 0) {
        if (collapsed.has(active.node.id)) setCollapsed(new Set([...collapsed].filter((k) => k !== active.node.id)));
        else move(index + 1);
      }
    } else if (key === "ArrowLeft") {
      if (active.kind === "node" && active.childCount > 0 && !collapsed.has(active.node.id))
        setCollapsed(new Set([...collapsed, active.node.id]));
      else if (active.kind === "edge") focusItem(`n:${active.node.id}`);
    } else if (key === "Enter" || key === " ") {
      const id = active.kind === "edge" ? (active.edge as WorkflowEdge).target : active.node.id;
      if (document.nodes.some((n) => n.id === id)) ui.getState().focusNode(id);
      if (active.kind === "node") ui.getState().select({ nodeIds: [active.node.id] });
      else ui.getState().select({ edgeIds: [(active.edge as WorkflowEdge).id] });
    } else if (key === "F2" && active.kind === "node" && !active.implicit && !readOnly) setRenaming(active.node.id);
    else if ((key === "Delete" || key === "Backspace") && !readOnly) removeItem(active);
    else if (
      key.toLowerCase() === "c" &&
      !event.ctrlKey &&
      !event.metaKey &&
      active.kind === "node" &&
      !readOnly &&
      active.node.type !== "end"
    )
      setConnecting(active.node.id);
    else handled = false;
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  };

  if (outline.length === 0) return <p className="p-3 text-sm text-muted-foreground">{t("editor.outline.empty")}</p>;

  return (
    <div className="flex flex-col gap-2 p-2" data-testid="outline-panel">
      <p className="px-1 text-xs text-muted-foreground" id="outline-help">
        {t("editor.outline.help")}
      </p>
      <div
        ref={treeRef}
        role="tree"
        aria-label={t("editor.outline.title")}
        aria-describedby="outline-help"
        onKeyDown={onKeyDown}
        className="flex flex-col"
        data-testid="outline-tree"
      >
        {outline.map((entry) => {
          const { node, implicit, edges } = entry;
          const key = `n:${node.id}`;
          const expanded = !collapsed.has(node.id);
          const Icon = NODE_ICONS[node.type];
          return (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the tree's onKeyDown handles keys for every item (roving focus)
            <div
              key={key}
              role="treeitem"
              data-key={key}
              onClick={(e) => {
                if (e.target !== e.currentTarget && (e.target as HTMLElement).closest("[data-key]") !== e.currentTarget)
                  return;
                setActiveKey(key);
                if (!implicit) ui.getState().focusNode(node.id);
              }}
              aria-level={1}
              aria-expanded={edges.length > 0 ? expanded : undefined}
              aria-selected={selected.includes(node.id)}
              tabIndex={active?.key === key ? 0 : -1}
              onFocus={(e) => {
                if (e.target === e.currentTarget) setActiveKey(key);
              }}
              className="rounded-md outline-none focus-visible:ring-[3px] focus-visible:ring-ring/60"
              data-testid={`outline-node-${node.id}`}
            >
              <div
                className={cn(
                  "flex items-center gap-2 rounded-md px-2 py-1 text-sm",
                  selected.includes(node.id) && "bg-accent text-accent-foreground",
                )}
              >
                <Icon className={cn("size-4 shrink-0", NODE_ACCENTS[node.type])} aria-hidden />
                <span className="min-w-0 flex-1 truncate">
                  {nodeName(node)}
                  <span className="ml-1 text-xs text-muted-foreground">
                    {implicit ? t("editor.outline.implicit") : node.id}
                  </span>
                </span>
              </div>
              {edges.length > 0 && expanded && (
                // biome-ignore lint/a11y/useSemanticElements: a tree's child list is an ARIA group, not a fieldset
                <div role="group">
                  {edges.map((edge) => {
                    const edgeKey = `e:${edge.id}`;
                    return (
                      <div
                        key={edgeKey}
                        role="treeitem"
                        data-key={edgeKey}
                        aria-level={2}
                        aria-selected={false}
                        tabIndex={active?.key === edgeKey ? 0 : -1}
                        onFocus={(e) => {
                          e.stopPropagation();
                          setActiveKey(edgeKey);
                        }}
                        className="ml-6 rounded-md px-2 py-0.5 text-sm text-muted-foreground outline-none focus-visible:ring-[3px] focus-visible:ring-ring/60"
                        data-testid={`outline-edge-${edge.id}`}
                      >
                        {edge.label
                          ? t("editor.outline.edgeLabelled", { label: edge.label, target: nameOf(edge.target) })
                          : t("editor.outline.edge", { target: nameOf(edge.target) })}
                      </div>
                    );
                  })}
                </div>
              )}
            </div>
          );
        })}
      </div>
      {renamingNode && (
        <RenameField
          initial={typeof renamingNode.data.label === "string" ? renamingNode.data.label : ""}
          placeholder={t(`editor.nodeTypes.${renamingNode.type}.name`)}
          label={t("editor.outline.renameLabel", { id: renamingNode.id })}
          onDone={(label) => {
            setRenaming(null);
            if (label !== null) run({ type: "rename-node", nodeId: renamingNode.id, label });
            focusItem(`n:${renamingNode.id}`);
          }}
        />
      )}
      {connectingNode && (
        <ConnectForm
          source={connectingNode}
          document={document}
          nameOf={nameOf}
          onDone={(target, label) => {
            setConnecting(null);
            if (target) run({ type: "connect", source: connectingNode.id, target, ...(label ? { label } : {}) });
            focusItem(`n:${connectingNode.id}`);
          }}
        />
      )}
      {active && !readOnly && !renamingNode && !connectingNode && (
        <div className="flex flex-wrap gap-1 border-t pt-2" role="toolbar" aria-label={t("editor.outline.actions")}>
          {active.kind === "node" && !active.implicit && (
            <Button size="sm" variant="outline" onClick={() => setRenaming(active.node.id)}>
              {t("editor.outline.rename")}
            </Button>
          )}
          {active.kind === "node" && active.node.type !== "end" && (
            <Button size="sm" variant="outline" onClick={() => setConnecting(active.node.id)}>
              {t("editor.outline.connect")}
            </Button>
          )}
          {!active.implicit && (
            <Button size="sm" variant="outline" onClick={() => removeItem(active)}>
              {t("editor.outline.delete")}
            </Button>
          )}
        </div>
      )}
    </div>
  );
}

function RenameField(props: {
  initial: string;
  placeholder: string;
  label: string;
  onDone(label: string | null): void;
}) {
  const [value, setValue] = useState(props.initial);
  return (
    <Input
      autoFocus
      className="h-7"
      value={value}
      placeholder={props.placeholder}
      aria-label={props.label}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === "Enter") props.onDone(value.trim());
        if (e.key === "Escape") props.onDone(null);
      }}
      onBlur={() => props.onDone(value.trim() === props.initial ? null : value.trim())}
      data-testid="outline-rename-input"
    />
  );
}

function ConnectForm(props: {
  source: WorkflowNode;
  document: Parameters<typeof canConnect>[0];
  nameOf(id: string): string;
  onDone(target: string | null, label?: string): void;
}) {
  const { t } = useTranslation();
  const { source, document } = props;
  const labels = sourceHandles(source, edgesBySource(document.edges).get(source.id) ?? [])
    .map((h) => h.label)
    .filter((l): l is string => l !== undefined);
  const ends = implicitEnds(document);
  const targets = [
    ...document.nodes.filter((n) => n.id !== source.id).map((n) => n.id),
    ...(ends.end ? ["end"] : []),
  ].filter((id) => canConnect(document, source.id, id));
  const [target, setTarget] = useState(targets[0] ?? "");
  const firstField = useRef<HTMLSelectElement>(null);
  useEffect(() => firstField.current?.focus(), []);
  const [label, setLabel] = useState(labels[0] ?? "");
  return (
    <fieldset
      className="flex flex-wrap items-end gap-2 rounded-md border p-2"
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === "Escape") props.onDone(null);
      }}
      data-testid="outline-connect-form"
    >
      <legend className="px-1 text-xs font-medium">
        {t("editor.outline.connectFrom", { source: props.nameOf(source.id) })}
      </legend>
      <label className="flex flex-col gap-1 text-xs">
        {t("editor.outline.target")}
        <select
          ref={firstField}
          className="h-8 rounded-md border bg-background px-2 text-sm"
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          data-testid="outline-connect-target"
        >
          {targets.map((id) => (
            <option key={id} value={id}>
              {props.nameOf(id)} ({id})
            </option>
          ))}
        </select>
      </label>
      {labels.length > 0 && (
        <label className="flex flex-col gap-1 text-xs">
          {t("editor.outline.label")}
          <select
            className="h-8 rounded-md border bg-background px-2 text-sm"
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            data-testid="outline-connect-label"
          >
            {labels.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
      )}
      <Button
        size="sm"
        disabled={!target}
        onClick={() => props.onDone(target, label || undefined)}
        data-testid="outline-connect-submit"
      >
        {t("editor.outline.connectSubmit")}
      </Button>
      <Button size="sm" variant="ghost" onClick={() => props.onDone(null)}>
        {t("editor.outline.cancel")}
      </Button>
    </fieldset>
  );
}
