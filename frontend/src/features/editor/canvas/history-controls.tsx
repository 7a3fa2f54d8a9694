// Undo and redo (buttons and Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y) and the labelled history list: every
// command is an entry, settings edits included; choosing one goes back (or forward) to just after it.
import { HistoryIcon, Redo2Icon, Undo2Icon } from "lucide-react";
import { useEffect, useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { cn } from "@/lib/utils";
import {
  type DocumentState,
  historyItems,
  selectCanRedo,
  selectCanUndo,
  useDocument,
  useDocumentStore,
} from "../document";
import { useEditorUi } from "../layout/editor-ui-store";
import { isTypingTarget } from "./canvas-keys";

/** Shown entries of the history list (the newest ones). */
const LIST_LIMIT = 60;

export function HistoryControls() {
  const { t } = useTranslation();
  const store = useDocumentStore();
  const preview = useEditorUi((s) => s.preview);
  const canUndo = useDocument(selectCanUndo) && preview === null;
  const canRedo = useDocument(selectCanRedo) && preview === null;
  const history = useDocument((s) => s.history);
  // historyItems reads only the history; computed once per history change.
  const items = useMemo(() => historyItems({ history } as DocumentState), [history]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || isTypingTarget(e.target) || e.defaultPrevented) return;
      const key = e.key.toLowerCase();
      const redo = (key === "z" && e.shiftKey) || (key === "y" && !e.shiftKey);
      const undo = key === "z" && !e.shiftKey;
      if (!undo && !redo) return;
      e.preventDefault();
      if (preview !== null) return;
      if (undo) store.getState().undo();
      else store.getState().redo();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [store, preview]);

  const shown = items.slice(-LIST_LIMIT).reverse();
  return (
    <div className="flex items-center gap-1" data-testid="history-controls">
      <Button
        variant="ghost"
        size="icon"
        disabled={!canUndo}
        onClick={() => store.getState().undo()}
        aria-label={t("editor.canvas.history.undo")}
        title={t("editor.canvas.history.undoShortcut")}
        data-testid="history-undo"
      >
        <Undo2Icon aria-hidden />
      </Button>
      <Button
        variant="ghost"
        size="icon"
        disabled={!canRedo}
        onClick={() => store.getState().redo()}
        aria-label={t("editor.canvas.history.redo")}
        title={t("editor.canvas.history.redoShortcut")}
        data-testid="history-redo"
      >
        <Redo2Icon aria-hidden />
      </Button>
      <DropdownMenu>
        <DropdownMenuTrigger asChild>
          <Button
            variant="ghost"
            size="icon"
            aria-label={t("editor.canvas.history.list")}
            data-testid="history-list-button"
          >
            <HistoryIcon aria-hidden />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="max-h-96 w-72 overflow-y-auto" data-testid="history-list">
          <DropdownMenuLabel>{t("editor.canvas.history.list")}</DropdownMenuLabel>
          <DropdownMenuSeparator />
          {shown.length === 0 && (
            <div className="px-2 py-1.5 text-sm text-muted-foreground">{t("editor.canvas.history.empty")}</div>
          )}
          {shown.map((item) => (
            <DropdownMenuItem
              key={item.id}
              disabled={preview !== null}
              onSelect={() => store.getState().jumpTo(item.id)}
              className={cn(!item.done && "text-muted-foreground line-through", item.current && "font-semibold")}
              aria-current={item.current ? "step" : undefined}
            >
              {t(item.labelKey, item.params)}
              {item.current && <span className="sr-only"> ({t("editor.canvas.history.current")})</span>}
            </DropdownMenuItem>
          ))}
          {items.length > 0 && (
            <>
              <DropdownMenuSeparator />
              <DropdownMenuItem disabled={preview !== null} onSelect={() => store.getState().jumpTo(null)}>
                {t("editor.canvas.history.start")}
              </DropdownMenuItem>
            </>
          )}
        </DropdownMenuContent>
      </DropdownMenu>
    </div>
  );
}
