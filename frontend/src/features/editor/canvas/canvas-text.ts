// The words drawn on canvas nodes, translated once per language and shared through context: a node
// then reads them instead of subscribing to i18next and translating its own (hundreds of nodes
// mount at once when a large workflow opens or a paste lands).
import type { TFunction } from "i18next";
import { createContext, useContext } from "react";
import type { NodeBadge } from "@/features/run/run-trace";
import type { CompareMark } from "../layout/editor-ui-store";

export interface CanvasText {
  typeName(type: string): string;
  inputHandle: string;
  outputHandle: string;
  unlabelled: string;
  implicit: string;
  outputHandleLabelled(label: string): string;
  problems(count: number): string;
  mark(mark: CompareMark): string;
  runBadge(badge: NodeBadge): string;
  /** The badge of a node inside an imported graph's subgraph. */
  subgraph(name: string): string;
}

/** The canvas's words in `t`'s language; fixed words are translated once, the rest when asked. */
export function canvasText(t: TFunction): CanvasText {
  const names = new Map<string, string>();
  return {
    typeName(type) {
      let name = names.get(type);
      if (name === undefined) {
        name = t(`editor.nodeTypes.${type}.name`);
        names.set(type, name);
      }
      return name;
    },
    inputHandle: t("editor.canvas.inputHandle"),
    outputHandle: t("editor.canvas.outputHandle"),
    unlabelled: t("editor.canvas.unlabelled"),
    implicit: t("editor.canvas.implicit"),
    outputHandleLabelled: (label) => t("editor.canvas.outputHandleLabelled", { label }),
    problems: (count) => t("editor.canvas.problems", { count }),
    mark: (mark) => t(`editor.canvas.mark.${mark}`),
    runBadge: (badge) => t(`run.status.${badge}`),
    subgraph: (name) => t("editor.imported.subgraphBadge", { name }),
  };
}

export const CanvasTextContext = createContext<CanvasText | null>(null);

export function useCanvasText(): CanvasText {
  const text = useContext(CanvasTextContext);
  if (!text) throw new Error("canvas nodes are drawn inside the canvas, which provides their words");
  return text;
}
