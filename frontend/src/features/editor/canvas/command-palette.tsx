// The Ctrl+K command palette (cmdk): add any node type, run any canvas action, jump to a node by its
// name, id or any text in its settings, open a state field, and connect the selected node to
// another one by name (the keyboard's way to draw an edge).
import { Command } from "cmdk";
import { Dialog as DialogPrimitive } from "radix-ui";
import { memo, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useShallow } from "zustand/react/shallow";
import { canConnect, useDocument, useDocumentStore, type WorkflowNode } from "../document";
import { useEditorUiStore } from "../layout/editor-ui-store";
import type { CanvasActions } from "./canvas-actions";
import { edgesBySource, sourceHandles } from "./canvas-graph";
import { NODE_ICONS, PALETTE_TYPES } from "./node-icons";

type Mode = "root" | "connect";
const CONNECT_KEY = "C";
const NO_NODES: readonly WorkflowNode[] = [];
const NO_FIELDS: readonly string[] = [];

export interface CommandPaletteProps {
  open: boolean;
  mode: Mode;
  readOnly: boolean;
  onOpenChange(open: boolean): void;
  onShowShortcuts(): void;
  actions: CanvasActions;
}

const ITEM =
  "flex cursor-default items-center gap-2 rounded-sm px-2 py-1.5 text-sm outline-none select-none data-[disabled=true]:opacity-50 data-[selected=true]:bg-accent data-[selected=true]:text-accent-foreground";
const GROUP =
  "px-1 py-1 text-foreground [&_[cmdk-group-heading]]:px-2 [&_[cmdk-group-heading]]:py-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-muted-foreground";

/** The words a node is found by: label, id, type and the text of its settings (capped). */
function nodeKeywords(node: WorkflowNode, typeName: string): string[] {
  const words = [node.id, typeName];
  let length = 0;
  const stack: unknown[] = [node.data];
  while (stack.length > 0 && length <= 2000) {
    const value = stack.pop();
    if (value !== null && typeof value === "object") {
      stack.push(...Object.values(value));
      continue;
    }
    if (typeof value !== "string" || value === "") continue;
    const text = value;
    words.push(text.slice(0, 200));
    length += Math.min(text.length, 200);
  }
  return words;
}

/** Memoised: closed, it draws nothing, and the canvas re-renders on every selection and edit. */
export const CommandPalette = memo(function CommandPalette({
  open,
  mode,
  readOnly,
  onOpenChange,
  onShowShortcuts,
  actions,
}: CommandPaletteProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const [page, setPage] = useState<Mode>(mode);
  const [lastOpen, setLastOpen] = useState(false);
  if (open !== lastOpen) {
    // Each opening starts on the page it was opened for, with an empty search.
    setLastOpen(open);
    if (open) {
      setPage(mode);
      setSearch("");
    }
  }
  const doc = useDocumentStore();
  const ui = useEditorUiStore();
  // Closed, the palette reads nothing of the document and builds none of its entries, so an edit
  // (or a drag frame) of a large workflow does not rebuild hundreds of entries no one sees.
  const nodes = useDocument((s) => (open ? s.content.document.nodes : NO_NODES));
  const fields = useDocument(
    useShallow((s) => (open ? s.content.document.state.map((f) => `${f.name}\u0000${f.type}`) : NO_FIELDS)),
  );
  const close = () => onOpenChange(false);
  const runAndClose = (fn: () => void) => () => {
    close();
    fn();
  };
  const nodeName = (node: WorkflowNode) =>
    typeof node.data.label === "string" && node.data.label ? node.data.label : t(`editor.nodeTypes.${node.type}.name`);

  const sourceId = open ? ui.getState().selectedNodeIds.find((id) => nodes.some((n) => n.id === id)) : undefined;
  const connectTargets = useMemo(() => {
    if (page !== "connect" || !sourceId) return [];
    const document = doc.getState().content.document;
    const source = document.nodes.find((n) => n.id === sourceId);
    if (!source) return [];
    const handles = sourceHandles(source, edgesBySource(document.edges).get(source.id) ?? []);
    const labels = handles.map((h) => h.label);
    const targets = document.nodes.filter((n) => n.id !== source.id && canConnect(document, source.id, n.id));
    if (!document.nodes.some((n) => n.type === "end"))
      targets.push({ id: "end", type: "end", position: { x: 0, y: 0 }, data: {} });
    return targets.flatMap((target) => labels.map((label) => ({ target, label })));
  }, [page, sourceId, doc]);

  const action = (key: string, run: () => void, options: { edits?: boolean; shortcut?: string } = {}) => (
    <Command.Item
      key={key}
      value={`${t(`editor.canvas.shortcuts.actions.${key}`)} action:${key}`}
      className={ITEM}
      disabled={options.edits === true && readOnly}
      onSelect={runAndClose(run)}
    >
      <span className="flex-1">{t(`editor.canvas.shortcuts.actions.${key}`)}</span>
      {options.shortcut && <kbd className="font-mono text-xs text-muted-foreground">{options.shortcut}</kbd>}
    </Command.Item>
  );

  return (
    <Command.Dialog
      open={open}
      onOpenChange={onOpenChange}
      label={t("editor.canvas.palette.title")}
      overlayClassName="fixed inset-0 z-50 bg-black/40"
      contentClassName="fixed top-[15%] left-1/2 z-50 w-full max-w-xl -translate-x-1/2 overflow-hidden rounded-lg border bg-popover text-popover-foreground shadow-lg"
      onKeyDown={(e) => {
        if (e.key === "Backspace" && search === "" && page !== "root") {
          e.preventDefault();
          setPage("root");
        }
      }}
    >
      {open && (
        <>
          <DialogPrimitive.Title className="sr-only">{t("editor.canvas.palette.title")}</DialogPrimitive.Title>
          <DialogPrimitive.Description className="sr-only">
            {t("editor.canvas.palette.description")}
          </DialogPrimitive.Description>
          <Command.Input
            value={search}
            onValueChange={setSearch}
            placeholder={
              page === "connect"
                ? t("editor.canvas.palette.connectPlaceholder")
                : t("editor.canvas.palette.placeholder")
            }
            aria-label={
              page === "connect"
                ? t("editor.canvas.palette.connectPlaceholder")
                : t("editor.canvas.palette.placeholder")
            }
            className="w-full border-b bg-transparent px-3 py-2.5 text-sm outline-none"
            data-testid="command-palette-input"
          />
          <Command.List className="max-h-96 overflow-y-auto p-1" data-testid="command-palette-list">
            <Command.Empty className="px-3 py-4 text-sm text-muted-foreground">
              {t("editor.canvas.palette.empty")}
            </Command.Empty>
            {page === "connect" ? (
              <Command.Group
                heading={t("editor.canvas.palette.connectFrom", { source: sourceId ?? "" })}
                className={GROUP}
              >
                {connectTargets.map(({ target, label }) => {
                  const Icon = NODE_ICONS[target.type];
                  return (
                    <Command.Item
                      key={`${target.id}:${label ?? ""}`}
                      value={`${nodeName(target)} ${target.id} ${label ?? ""} connect:${target.id}:${label ?? ""}`}
                      className={ITEM}
                      onSelect={runAndClose(() => {
                        if (sourceId) actions.connect(sourceId, target.id, label);
                      })}
                    >
                      <Icon className="size-4 text-muted-foreground" aria-hidden />
                      <span className="flex-1 truncate">
                        {label
                          ? t("editor.canvas.palette.connectLabelled", { label, target: nodeName(target) })
                          : nodeName(target)}
                      </span>
                      <span className="text-xs text-muted-foreground">{target.id}</span>
                    </Command.Item>
                  );
                })}
              </Command.Group>
            ) : (
              <>
                <Command.Group heading={t("editor.canvas.palette.addNode")} className={GROUP}>
                  {PALETTE_TYPES.map((type) => {
                    const Icon = NODE_ICONS[type];
                    const name = t(`editor.nodeTypes.${type}.name`);
                    return (
                      <Command.Item
                        key={type}
                        value={`${t("editor.canvas.palette.addType", { type: name })} add:${type}`}
                        keywords={[t("editor.canvas.palette.addKeyword")]}
                        className={ITEM}
                        disabled={readOnly}
                        onSelect={runAndClose(() => actions.addNode(type))}
                      >
                        <Icon className="size-4 text-muted-foreground" aria-hidden />
                        {t("editor.canvas.palette.addType", { type: name })}
                      </Command.Item>
                    );
                  })}
                </Command.Group>
                <Command.Group heading={t("editor.canvas.palette.actions")} className={GROUP}>
                  {action("undo", actions.undo, { edits: true, shortcut: "Ctrl+Z" })}
                  {action("redo", actions.redo, { edits: true, shortcut: "Ctrl+Shift+Z" })}
                  <Command.Item
                    value={`${t("editor.canvas.shortcuts.actions.connect")} action:connect`}
                    className={ITEM}
                    disabled={readOnly || !sourceId}
                    onSelect={() => {
                      setSearch("");
                      setPage("connect");
                    }}
                  >
                    <span className="flex-1">{t("editor.canvas.shortcuts.actions.connect")}</span>
                    <kbd className="font-mono text-xs text-muted-foreground">{CONNECT_KEY}</kbd>
                  </Command.Item>
                  {action("layout", () => void actions.layout(), { edits: true, shortcut: "Shift+L" })}
                  {action("fit", actions.fit, { shortcut: "Shift+1" })}
                  {action("zoomIn", actions.zoomIn, { shortcut: "+" })}
                  {action("zoomOut", actions.zoomOut, { shortcut: "-" })}
                  {action("copy", () => void actions.copy(), { shortcut: "Ctrl+C" })}
                  {action("cut", () => void actions.cut(), { edits: true, shortcut: "Ctrl+X" })}
                  {action("paste", () => void actions.paste(), { edits: true, shortcut: "Ctrl+V" })}
                  {action("duplicate", actions.duplicate, { edits: true, shortcut: "Ctrl+D" })}
                  {action("delete", actions.remove, { edits: true, shortcut: "Delete" })}
                  {action("selectAll", actions.selectAll, { shortcut: "Ctrl+A" })}
                  {action("selectUpstream", () => actions.selectReachable("upstream"), { shortcut: "Shift+←" })}
                  {action("selectDownstream", () => actions.selectReachable("downstream"), { shortcut: "Shift+→" })}
                  {action("addNote", () => actions.addNote(), { edits: true, shortcut: "Shift+N" })}
                  {action("shortcuts", onShowShortcuts, { shortcut: "?" })}
                </Command.Group>
                {fields.length > 0 && (
                  <Command.Group heading={t("editor.canvas.palette.stateFields")} className={GROUP}>
                    {fields.map((entry) => {
                      const [name, type] = entry.split("\u0000");
                      return (
                        <Command.Item
                          key={name}
                          value={`${name} field:${name}`}
                          className={ITEM}
                          onSelect={runAndClose(() => ui.getState().openPanel("state"))}
                        >
                          <span className="flex-1 font-mono">{name}</span>
                          <span className="text-xs text-muted-foreground">{type}</span>
                        </Command.Item>
                      );
                    })}
                  </Command.Group>
                )}
                {nodes.length > 0 && (
                  <Command.Group heading={t("editor.canvas.palette.goTo")} className={GROUP}>
                    {nodes.map((node) => {
                      const Icon = NODE_ICONS[node.type];
                      return (
                        <Command.Item
                          key={node.id}
                          value={`${nodeName(node)} ${node.id} node:${node.id}`}
                          data-testid={`palette-node-${node.id}`}
                          keywords={nodeKeywords(node, t(`editor.nodeTypes.${node.type}.name`))}
                          className={ITEM}
                          onSelect={runAndClose(() => ui.getState().focusNode(node.id))}
                        >
                          <Icon className="size-4 text-muted-foreground" aria-hidden />
                          <span className="flex-1 truncate">{nodeName(node)}</span>
                          <span className="text-xs text-muted-foreground">{node.id}</span>
                        </Command.Item>
                      );
                    })}
                  </Command.Group>
                )}
              </>
            )}
          </Command.List>
        </>
      )}
    </Command.Dialog>
  );
});
