import { describe, expect, it } from "vitest";
import { sameDrawing } from "./canvas-nodes";

describe("when a canvas node is drawn again", () => {
  const data = { label: "x" };
  const props = { id: "a", data, selected: false, isConnectable: true, positionAbsoluteX: 0, positionAbsoluteY: 0 };

  it("is not redrawn when only its position changes (each frame of a drag)", () => {
    expect(sameDrawing(props, { ...props, positionAbsoluteX: 120, positionAbsoluteY: 60 })).toBe(true);
  });

  it("is redrawn when its data, selection or connectability changes", () => {
    expect(sameDrawing(props, { ...props, data: { label: "x" } })).toBe(false);
    expect(sameDrawing(props, { ...props, selected: true })).toBe(false);
    expect(sameDrawing(props, { ...props, isConnectable: false })).toBe(false);
  });
});
