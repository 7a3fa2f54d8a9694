import { describe, expect, it } from "vitest";
import { draftFrom, readInput } from "./run-input-form";

describe("the input of an imported graph (no state fields, raw JSON only)", () => {
  it("takes any JSON object, the runtime context under __context__ included, as it is", () => {
    const input = { messages: [{ role: "user", content: "hi" }], __context__: { model: "x" }, n: 1 };
    const draft = draftFrom([], input, true);
    expect(draft.raw).toBe(true);
    expect(readInput([], draft)).toEqual({ ok: true, input });
  });

  it("takes an empty text as {} and refuses what is no JSON object", () => {
    expect(readInput([], { raw: true, fields: {}, json: "" })).toEqual({ ok: true, input: {} });
    expect(readInput([], { raw: true, fields: {}, json: "[1]" })).toEqual({
      ok: false,
      problems: { "": "run.input.notObject" },
    });
    expect(readInput([], { raw: true, fields: {}, json: "{" })).toEqual({
      ok: false,
      problems: { "": "run.input.badJson" },
    });
  });
});
