// The `?` sheet: every shortcut of the editor, with what it does.
import { memo } from "react";
import { useTranslation } from "react-i18next";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { SHORTCUTS } from "./canvas-keys";

/** Memoised: the canvas re-renders on every selection and edit; the closed sheet need not. */
export const ShortcutSheet = memo(function ShortcutSheet({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-xl" data-testid="shortcut-sheet">
        <DialogHeader>
          <DialogTitle>{t("editor.canvas.shortcuts.title")}</DialogTitle>
          <DialogDescription>{t("editor.canvas.shortcuts.description")}</DialogDescription>
        </DialogHeader>
        <table className="w-full text-sm">
          <thead className="sr-only">
            <tr>
              <th scope="col">{t("editor.canvas.shortcuts.keys")}</th>
              <th scope="col">{t("editor.canvas.shortcuts.action")}</th>
            </tr>
          </thead>
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={`${s.action}-${s.keys.join("+")}`} className="border-b last:border-0">
                <td className="py-1.5 pr-4 whitespace-nowrap">
                  {s.keys.map((k, i) => (
                    <span key={k}>
                      {i > 0 && <span aria-hidden>{s.anyOf ? " / " : " + "}</span>}
                      <kbd className="rounded border bg-muted px-1.5 py-0.5 font-mono text-xs">
                        {isWord(k) ? t(`editor.canvas.keys.${k.toLowerCase()}`) : k}
                      </kbd>
                    </span>
                  ))}
                </td>
                <td className="py-1.5">{t(`editor.canvas.shortcuts.actions.${s.action}`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </DialogContent>
    </Dialog>
  );
});

/** Keys named by a word (Click, Drag, Delete, …) are translated; letters and symbols are not. */
export function isWord(key: string): boolean {
  return key.length > 1 && /^[A-Za-z]+$/.test(key);
}
