// How a node and a note look on the canvas. Memoised on what they draw (not on where they are):
// React Flow hands each one its own node object, and the element builder keeps that object while
// nothing about the node changed, so panning never re-renders a node, and dragging moves the
// node's wrapper without re-rendering its content. At low zoom the canvas hides the parts marked
// `canvas-detail` (text, icons, handles) with one CSS class, so a zoomed-out view of hundreds of
// nodes paints boxes, not text, without re-rendering or re-measuring any node.
import { type NodeProps, NodeResizer, Position, useStoreApi } from "@xyflow/react";
import { CircleAlertIcon } from "lucide-react";
import { memo, useCallback, useEffect, useState } from "react";
import { flushSync } from "react-dom";
import { useTranslation } from "react-i18next";
import { NodeRunBadge } from "@/features/run/node-run-badge";
import { cn } from "@/lib/utils";
import { type NoteColor, useDispatch } from "../document";
import { importedNodeInfo } from "../imported/imported-workflow";
import type { NoteFlowNode, WorkflowFlowNode } from "./canvas-elements";
import { NodeHandle } from "./canvas-handles";
import { useCanvasText } from "./canvas-text";
import { NODE_ACCENTS, NODE_ICONS } from "./node-icons";

const MARK_CLASSES = {
  added: "ring-2 ring-emerald-500 ring-offset-2 ring-offset-background",
  removed: "opacity-70 ring-2 ring-rose-500 ring-offset-2 ring-offset-background border-dashed",
  changed: "ring-2 ring-amber-500 ring-offset-2 ring-offset-background",
} as const;

const HANDLE_CLASS = "!size-3 !border-2 !border-background !bg-muted-foreground";

/** Props a node's drawing depends on: its position (which changes on every frame of a drag) is not one. */
export function sameDrawing<P extends { id: string; data: unknown; selected?: boolean; isConnectable?: boolean }>(
  a: P,
  b: P,
): boolean {
  return a.id === b.id && a.data === b.data && a.selected === b.selected && a.isConnectable === b.isConnectable;
}

function WorkflowNodeDrawing({ id, data, selected }: NodeProps<WorkflowFlowNode>) {
  const text = useCanvasText();
  const { node, handles, problems, mark, implicit } = data;
  const Icon = NODE_ICONS[node.type];
  const typeName = text.typeName(node.type);
  const custom = typeof node.data.label === "string" && node.data.label !== "" ? node.data.label : undefined;
  const labelled = handles.some((h) => h.label !== undefined);
  const subgraph = importedNodeInfo(node)?.subgraph ?? null;
  // React Flow's own handles once the pointer reaches or moves in the node (canvas-handles.tsx); at
  // once, so that the press that follows starts a connection. Not while a connection is being
  // dragged: a handle swapped under it lost the connection's end, which ends on the still drawing
  // as it does on React Flow's handle.
  const [live, setLive] = useState(false);
  const flow = useStoreApi();
  const goLive = useCallback(() => {
    if (!flow.getState().connection.inProgress) flushSync(() => setLive(true));
  }, [flow]);
  return (
    <div
      onPointerEnter={live ? undefined : goLive}
      onPointerMove={live ? undefined : goLive}
      className={cn(
        "canvas-node relative w-52 rounded-lg border-2 bg-card text-card-foreground shadow-sm",
        selected ? "border-primary" : "border-border",
        problems > 0 && "border-destructive",
        implicit && "border-dashed",
        mark && MARK_CLASSES[mark],
      )}
      data-testid={`canvas-node-${id}`}
      data-node-type={node.type}
      data-implicit={implicit ? "true" : undefined}
    >
      <NodeRunBadge nodeId={id} nodeType={node.type} label={text.runBadge} />
      {node.type !== "start" && (
        <NodeHandle
          live={live}
          nodeId={id}
          type="target"
          id="in"
          position={Position.Left}
          className={HANDLE_CLASS}
          title={text.inputHandle}
        />
      )}
      <div className="canvas-detail flex items-center gap-2 px-3 py-2">
        <Icon className={cn("size-4 shrink-0", NODE_ACCENTS[node.type])} aria-hidden />
        <div className="min-w-0 flex-1">
          <div className="truncate text-sm font-medium" title={custom ?? typeName}>
            {custom ?? typeName}
          </div>
          <div className="truncate text-xs text-muted-foreground">
            {custom ? `${typeName} · ${id}` : implicit ? text.implicit : id}
          </div>
        </div>
        {problems > 0 && (
          <span className="shrink-0 text-destructive" data-testid={`canvas-node-problem-${id}`}>
            <CircleAlertIcon className="size-4" aria-hidden />
            <span className="sr-only">{text.problems(problems)}</span>
          </span>
        )}
      </div>
      {subgraph && (
        <div
          className="canvas-detail truncate border-t bg-violet-50 px-3 py-0.5 text-xs font-medium text-violet-800 dark:bg-violet-950/60 dark:text-violet-200"
          title={text.subgraph(subgraph)}
          data-testid={`canvas-node-subgraph-${id}`}
        >
          {text.subgraph(subgraph)}
        </div>
      )}
      {mark && (
        <div className="canvas-detail border-t px-3 py-0.5 text-xs font-medium" data-testid={`canvas-node-mark-${id}`}>
          {text.mark(mark)}
        </div>
      )}
      {labelled ? (
        <div className="canvas-detail border-t py-1">
          {handles.map((h) => (
            <div key={h.id} className="relative flex h-6 items-center justify-end pr-4 text-xs">
              <span className={cn("truncate", h.stale ? "text-destructive line-through" : "text-muted-foreground")}>
                {h.label ?? text.unlabelled}
              </span>
              <NodeHandle
                live={live}
                nodeId={id}
                type="source"
                id={h.id}
                position={Position.Right}
                className={HANDLE_CLASS}
                title={text.outputHandleLabelled(h.label ?? text.unlabelled)}
              />
            </div>
          ))}
        </div>
      ) : (
        handles.map((h) => (
          <NodeHandle
            key={h.id}
            live={live}
            nodeId={id}
            type="source"
            id={h.id}
            position={Position.Right}
            className={HANDLE_CLASS}
            title={text.outputHandle}
          />
        ))
      )}
    </div>
  );
}

export const WorkflowNodeView = memo(WorkflowNodeDrawing, sameDrawing);

const NOTE_BG: Record<NoteColor, string> = {
  yellow: "bg-amber-100 text-amber-950 dark:bg-amber-900/60 dark:text-amber-50",
  blue: "bg-sky-100 text-sky-950 dark:bg-sky-900/60 dark:text-sky-50",
  green: "bg-emerald-100 text-emerald-950 dark:bg-emerald-900/60 dark:text-emerald-50",
  pink: "bg-pink-100 text-pink-950 dark:bg-pink-900/60 dark:text-pink-50",
  gray: "bg-zinc-100 text-zinc-950 dark:bg-zinc-800 dark:text-zinc-50",
};

const NOTE_COLORS = Object.keys(NOTE_BG) as NoteColor[];

function NoteDrawing({ id, data, selected }: NodeProps<NoteFlowNode>) {
  const { t } = useTranslation();
  const dispatch = useDispatch();
  const { note, readOnly } = data;
  const [text, setText] = useState(note.text);
  useEffect(() => setText(note.text), [note.text]);
  const color = note.color ?? "yellow";
  return (
    <div
      className={cn("flex h-full min-h-24 w-full min-w-40 flex-col rounded-md border shadow-sm", NOTE_BG[color])}
      data-testid={`canvas-note-${id}`}
    >
      {!readOnly && (
        <NodeResizer
          isVisible={selected}
          minWidth={160}
          minHeight={96}
          onResizeEnd={(_event, size) =>
            dispatch({
              type: "update-note",
              id,
              changes: { size: { width: Math.round(size.width), height: Math.round(size.height) } },
            })
          }
        />
      )}
      <textarea
        className="nodrag nowheel min-h-0 flex-1 resize-none bg-transparent p-2 text-sm outline-none focus-visible:ring-2 focus-visible:ring-ring"
        aria-label={t("editor.canvas.noteText")}
        placeholder={t("editor.canvas.notePlaceholder")}
        value={text}
        readOnly={readOnly}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => {
          if (text !== note.text) dispatch({ type: "update-note", id, changes: { text } });
        }}
      />
      {selected && !readOnly && (
        <fieldset className="nodrag flex gap-1 p-1">
          <legend className="sr-only">{t("editor.canvas.noteColor")}</legend>
          {NOTE_COLORS.map((c) => (
            <button
              key={c}
              type="button"
              className={cn("size-5 rounded-full border", NOTE_BG[c], c === color && "ring-2 ring-ring")}
              aria-label={t(`editor.canvas.noteColors.${c}`)}
              aria-pressed={c === color}
              onClick={() => dispatch({ type: "update-note", id, changes: { color: c } })}
            />
          ))}
        </fieldset>
      )}
    </div>
  );
}

export const NoteNodeView = memo(NoteDrawing, sameDrawing);
