import i18next from "i18next";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/api";
import { VALIDATION_CATALOG } from "../../../../../backend/src/core/errors.js";
import en from "../../../locales/en.json";
import viLocale from "../../../locales/vi.json";
import { problemDetail, sameProblems, shownProblems } from "./use-validation";
import { createValidationRunner, type ValidationResult, validationResult } from "./validation-runner";
import { problemCount } from "./validation-store";

const invalid = (problems: unknown) => new ApiError("WORKFLOW_INVALID", 422, "invalid", problems);

/** A validate function whose answers the test releases one by one, in any order. */
function controlledValidate() {
  const calls: { document: unknown; answer(error?: Error): void }[] = [];
  const validate = (document: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      calls.push({ document, answer: (error) => (error ? reject(error) : resolve({ valid: true })) });
    });
  return { calls, validate };
}

describe("validation runner", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("checks once after edits pause, with the last document", async () => {
    const { calls, validate } = controlledValidate();
    const results: ValidationResult[] = [];
    const runner = createValidationRunner({
      validate,
      onChecking() {},
      onResult: (r) => results.push(r),
      delayMs: 600,
    });
    runner.schedule({ n: 1 });
    runner.schedule({ n: 2 });
    await vi.advanceTimersByTimeAsync(599);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.document)).toEqual([{ n: 2 }]);
    calls[0]?.answer(invalid([{ code: "START_MISSING", message: "x" }]));
    await vi.runAllTimersAsync();
    expect(results).toEqual([{ status: "invalid", problems: [{ code: "START_MISSING", message: "x" }] }]);
  });

  it("keeps only the answer for the latest document when answers come back out of order", async () => {
    const { calls, validate } = controlledValidate();
    const results: ValidationResult[] = [];
    const runner = createValidationRunner({ validate, onChecking() {}, onResult: (r) => results.push(r), delayMs: 10 });
    runner.schedule({ n: 1 });
    await vi.advanceTimersByTimeAsync(10);
    runner.schedule({ n: 2 });
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toHaveLength(2);
    calls[1]?.answer();
    await vi.runAllTimersAsync();
    calls[0]?.answer(invalid([{ code: "START_MISSING", message: "x" }]));
    await vi.runAllTimersAsync();
    expect(results).toEqual([{ status: "valid" }]);
    runner.dispose();
  });

  it("reports a network or server failure by its code, and a dropped connection as NETWORK", async () => {
    expect(await validationResult(() => Promise.reject(new ApiError("INTERNAL", 500, "x", null)))).toEqual({
      status: "failed",
      code: "INTERNAL",
    });
    expect(await validationResult(() => Promise.reject(new TypeError("fetch failed")))).toEqual({
      status: "failed",
      code: "NETWORK",
    });
    // A WORKFLOW_INVALID without a problem list is not taken for a list of zero problems.
    expect(await validationResult(() => Promise.reject(invalid(null)))).toEqual({
      status: "failed",
      code: "WORKFLOW_INVALID",
    });
  });
});

describe("validator problems in the UI", () => {
  it("have a message in both languages for every code the validator reports", async () => {
    const i18n = i18next.createInstance();
    await i18n.init({ resources: { en: { translation: en }, vi: { translation: viLocale } }, lng: "en" });
    for (const lang of ["en", "vi"]) {
      const t = i18n.getFixedT(lang);
      const problems = Object.keys(VALIDATION_CATALOG).map((code) => ({ code, message: "server text" }));
      const shown = shownProblems(t, { status: "invalid", problems });
      expect(shown).toHaveLength(Object.keys(VALIDATION_CATALOG).length);
      for (const p of shown) {
        expect(p.message, `${lang} ${p.code}`).not.toBe("server text");
        expect(p.message).not.toMatch(/\{\{|undefined/);
      }
    }
    // A code this UI does not know yet falls back to the server's own words.
    const t = i18n.getFixedT("vi");
    expect(shownProblems(t, { status: "invalid", problems: [{ code: "NEW_CODE", message: "Server says" }] })).toEqual([
      { code: "NEW_CODE", message: "Server says" },
    ]);
  });

  it("carry node and edge ids to the canvas, count what stops a run, and keep the server's extra detail", () => {
    const t = ((key: string) => key) as never;
    const problems = [
      { code: "NODE_UNREACHABLE", message: VALIDATION_CATALOG.NODE_UNREACHABLE, node_id: "a" },
      { code: "EDGE_TARGET_UNKNOWN", message: VALIDATION_CATALOG.EDGE_TARGET_UNKNOWN, edge_id: "e1" },
      { code: "PROVIDER_NOT_CONFIGURED", message: "Set OPENAI_API_KEY to run openai models.", node_id: "b" },
      { code: "PROBLEMS_TRUNCATED", message: VALIDATION_CATALOG.PROBLEMS_TRUNCATED },
    ];
    expect(shownProblems(t, { status: "invalid", problems }).map((p) => [p.nodeId, p.edgeId])).toEqual([
      ["a", undefined],
      [undefined, "e1"],
      ["b", undefined],
      [undefined, undefined],
    ]);
    expect(problemCount({ status: "invalid", problems })).toBe(3);
    expect(problemCount({ status: "valid" })).toBe(0);
    expect(problems.map(problemDetail)).toEqual([null, null, "Set OPENAI_API_KEY to run openai models.", null]);
  });

  it("tell an answer that says the same from one that does not, so the canvas keeps its marks", () => {
    const t = ((key: string) => key) as never;
    const problems = [
      { code: "NODE_UNREACHABLE", message: "x", node_id: "a" },
      { code: "EDGE_TARGET_UNKNOWN", message: "y", edge_id: "e1" },
    ];
    const first = shownProblems(t, { status: "invalid", problems });
    const again = shownProblems(t, { status: "invalid", problems: problems.map((p) => ({ ...p })) });
    expect(again).not.toBe(first);
    expect(sameProblems(first, again)).toBe(true);
    expect(sameProblems(first, first.slice(0, 1))).toBe(false);
    expect(sameProblems(first, [first[0] as never, { ...first[1], edgeId: "e2" } as never])).toBe(false);
    expect(sameProblems([], shownProblems(t, { status: "valid" }))).toBe(true);
  });
});
