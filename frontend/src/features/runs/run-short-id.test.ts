import { describe, expect, it } from "vitest";
import { shortRunId } from "./run-short-id";

describe("shortRunId", () => {
  it("tells apart two runs created in the same millisecond", () => {
    // Two UUIDv7 ids of one millisecond: the same 48-bit time prefix, random tails.
    const a = "019af3c2-7d10-7a4b-9c21-5e0d3b8f61a2";
    const b = "019af3c2-7d10-7e03-b4f7-0c9a2d77e5c9";
    expect(shortRunId(a)).toBe("3b8f61a2");
    expect(shortRunId(b)).toBe("2d77e5c9");
    expect(shortRunId(a)).not.toBe(shortRunId(b));
  });
});
