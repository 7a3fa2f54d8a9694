import { describe, expect, it } from "vitest";
import { LogBuffer } from "./log-buffer.mjs";

describe("LogBuffer", () => {
  it("keeps lines up to the line limit, then one marker", () => {
    const logs = new LogBuffer({ maxLines: 2, maxBytes: 1000 });
    expect(logs.add("a")).toBe("a");
    expect(logs.add("b")).toBe("b");
    expect(logs.add("c")).toMatch(/dropped/);
    expect(logs.add("d")).toBeNull();
    expect(logs.lines).toEqual(["a", "b", logs.lines[2]]);
    expect(logs.full).toBe(true);
  });

  it("cuts at the byte limit without splitting a character", () => {
    const logs = new LogBuffer({ maxLines: 10, maxBytes: 4 });
    // "€" takes 3 bytes in UTF-8: only 2 of them fit, so it is dropped whole.
    expect(logs.add("ab€cd")).toBe("ab");
    expect(logs.lines).toHaveLength(2);
    expect(logs.add("more")).toBeNull();
  });

  it("gives the same lines when applied again to its own output (parent after child)", () => {
    const limits = { maxLines: 3, maxBytes: 12 };
    const child = new LogBuffer(limits);
    for (const line of ["one", "two", "three", "four"]) child.add(line);
    const parent = new LogBuffer(limits);
    for (const line of child.lines) parent.add(line);
    expect(parent.lines).toEqual(child.lines);
  });
});
