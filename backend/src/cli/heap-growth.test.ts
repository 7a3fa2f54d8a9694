import { afterEach, describe, expect, it } from "vitest";
import { applyHeapGrowth } from "./heap-growth.js";

const saved = process.env.NODE_OPTIONS;
afterEach(() => {
  if (saved === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = saved;
});

describe("applyHeapGrowth", () => {
  it("leaves the heap's growth to V8 at 0", () => {
    expect(applyHeapGrowth(0)).toBe(false);
  });

  it("leaves it to the operator's own Node flag", () => {
    process.env.NODE_OPTIONS = "--max-semi-space-size=16 --heap-growing-percent=50";
    expect(applyHeapGrowth(20)).toBe(false);
    process.env.NODE_OPTIONS = "--heap_growing_percent=50";
    expect(applyHeapGrowth(20)).toBe(false);
  });

  it("sets it otherwise", () => {
    process.env.NODE_OPTIONS = "--max-semi-space-size=16";
    expect(applyHeapGrowth(20)).toBe(true);
  });
});
