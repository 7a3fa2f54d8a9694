// The node palette (left column): every node type. Click or Enter adds one at the centre of the
// view; dragging one onto the canvas adds it where it is dropped.
import { useTranslation } from "react-i18next";
import { cn } from "@/lib/utils";
import { useDocument, useDocumentStore } from "../document";
import { useEditorUi } from "../layout/editor-ui-store";
import { NODE_DRAG_TYPE, useCanvasApi } from "./canvas-bridge";
import { NODE_ACCENTS, NODE_ICONS, PALETTE_TYPES } from "./node-icons";

export function NodePalette() {
  const { t } = useTranslation();
  const store = useDocumentStore();
  const canvas = useCanvasApi(store);
  const preview = useEditorUi((s) => s.preview);
  const readOnly = useDocument((s) => s.readOnly);
  const disabled = !canvas || preview !== null || readOnly;
  return (
    <nav
      data-canvas-scope
      aria-label={t("editor.canvas.palette.nodes")}
      className="flex w-44 flex-col gap-1 p-2"
      data-testid="node-palette"
    >
      <h2 className="px-1 pb-1 text-xs font-medium text-muted-foreground">{t("editor.canvas.palette.nodes")}</h2>
      {/* An imported graph's nodes are its code's: none can be added. */}
      {readOnly ? (
        <p className="px-1 text-xs text-muted-foreground" data-testid="palette-read-only">
          {t("editor.imported.paletteHint")}
        </p>
      ) : (
        <ul className="flex flex-col gap-1">
          {PALETTE_TYPES.map((type) => {
            const Icon = NODE_ICONS[type];
            const name = t(`editor.nodeTypes.${type}.name`);
            return (
              <li key={type}>
                <button
                  type="button"
                  draggable={!disabled}
                  disabled={disabled}
                  data-testid={`palette-${type}`}
                  title={t(`editor.nodeTypes.${type}.description`)}
                  aria-label={t("editor.canvas.palette.addType", { type: name })}
                  onClick={() => canvas?.addNode(type)}
                  onDragStart={(event) => {
                    event.dataTransfer.setData(NODE_DRAG_TYPE, type);
                    event.dataTransfer.effectAllowed = "copy";
                  }}
                  className={cn(
                    "flex w-full cursor-grab items-center gap-2 rounded-md border bg-card px-2 py-1.5 text-left text-sm outline-none hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/60",
                    "disabled:cursor-not-allowed disabled:opacity-50",
                  )}
                >
                  <Icon className={cn("size-4 shrink-0", NODE_ACCENTS[type])} aria-hidden />
                  <span className="truncate">{name}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}
