// The canvas's keyboard shortcuts, on the window in the capture phase (so Shift+arrows select up-
// or downstream instead of nudging the focused node). Keys typed into a field, an editor or a
// dialog are left alone: undo inside a text field stays the field's own.
import { useEffect } from "react";
import type { CanvasActions } from "./canvas-actions";

export type CanvasOverlay = "palette" | "connect" | "shortcuts";

/** Whether a key event belongs to a text field, a code editor or an open dialog. */
export function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== "function") return false;
  if (el.closest("input, textarea, select, [contenteditable='true'], .cm-editor")) return true;
  return el.closest("[role='dialog'], [role='alertdialog'], [role='menu']") !== null;
}

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;

/**
 * Whether an editing key (Delete, C, copy, paste, …) is meant for the canvas: it is, unless the
 * focus is in a side panel or its tabs (the outline, the settings), whose keys stay there.
 */
export function isCanvasScope(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== "function") return true;
  if (el.closest("[data-canvas-scope]")) return true;
  return el.closest("[role='tabpanel'], [role='tablist']") === null;
}

export function useCanvasKeys(
  actions: CanvasActions,
  options: { readOnly: boolean; open(overlay: CanvasOverlay): void; hasSelection(): boolean },
): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const key = e.key;
      if (mod(e) && !e.shiftKey && !e.altKey && key.toLowerCase() === "k") {
        e.preventDefault();
        options.open("palette");
        return;
      }
      if (isTypingTarget(e.target)) return;
      const handled = (run: () => void) => {
        e.preventDefault();
        e.stopPropagation();
        run();
      };
      const scoped = isCanvasScope(e.target);
      if (mod(e) && !e.altKey) {
        if (!scoped) return;
        const lower = key.toLowerCase();
        if (lower === "c" && !e.shiftKey) return handled(() => void actions.copy());
        if (lower === "a" && !e.shiftKey) return handled(actions.selectAll);
        if (options.readOnly) return;
        if (lower === "x" && !e.shiftKey) return handled(() => void actions.cut());
        if (lower === "v" && !e.shiftKey) return handled(() => void actions.paste());
        if (lower === "d" && !e.shiftKey) return handled(actions.duplicate);
        return;
      }
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (key === "?") return handled(() => options.open("shortcuts"));
      if (key === "!" || (e.shiftKey && e.code === "Digit1")) return handled(actions.fit);
      if (key === "+" || key === "=") return handled(actions.zoomIn);
      if (key === "-" || key === "_") return handled(actions.zoomOut);
      if (!scoped) return;
      if (e.shiftKey && key === "ArrowLeft" && options.hasSelection())
        return handled(() => actions.selectReachable("upstream"));
      if (e.shiftKey && key === "ArrowRight" && options.hasSelection())
        return handled(() => actions.selectReachable("downstream"));
      if (options.readOnly) return;
      if (key === "Delete" || key === "Backspace") return handled(actions.remove);
      if (e.shiftKey && key.toLowerCase() === "l") return handled(() => void actions.layout());
      if (e.shiftKey && key.toLowerCase() === "n") return handled(() => actions.addNote());
      if (!e.shiftKey && key.toLowerCase() === "c" && options.hasSelection())
        return handled(() => options.open("connect"));
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [actions, options]);
}

/** Every shortcut, for the `?` sheet and the docs (keys as shown, locale key of what it does). */
export const SHORTCUTS: { keys: string[]; action: string; anyOf?: boolean }[] = [
  { keys: ["Ctrl", "K"], action: "palette" },
  { keys: ["?"], action: "shortcuts" },
  { keys: ["Ctrl", "Z"], action: "undo" },
  { keys: ["Ctrl", "Shift", "Z"], action: "redo" },
  { keys: ["Ctrl", "Y"], action: "redo" },
  { keys: ["Ctrl", "C"], action: "copy" },
  { keys: ["Ctrl", "X"], action: "cut" },
  { keys: ["Ctrl", "V"], action: "paste" },
  { keys: ["Ctrl", "D"], action: "duplicate" },
  { keys: ["Delete"], action: "delete" },
  { keys: ["Ctrl", "A"], action: "selectAll" },
  { keys: ["Shift", "Click"], action: "multiSelect" },
  { keys: ["Shift", "Drag"], action: "boxSelect" },
  { keys: ["Shift", "←"], action: "selectUpstream" },
  { keys: ["Shift", "→"], action: "selectDownstream" },
  { keys: ["C"], action: "connect" },
  { keys: ["Tab"], action: "focusNext" },
  { keys: ["Enter"], action: "selectFocused" },
  { keys: ["←", "↑", "→", "↓"], action: "nudge", anyOf: true },
  { keys: ["Shift", "1"], action: "fit" },
  { keys: ["+"], action: "zoomIn" },
  { keys: ["-"], action: "zoomOut" },
  { keys: ["Shift", "L"], action: "layout" },
  { keys: ["Shift", "N"], action: "addNote" },
];
