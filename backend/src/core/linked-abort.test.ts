import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LinkedAbort } from "./linked-abort.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("LinkedAbort", () => {
  it("aborts with the reason of the first source that aborts", () => {
    const cancel = new AbortController();
    const other = new AbortController();
    const link = new LinkedAbort([undefined, other.signal, cancel.signal]);
    expect(link.signal.aborted).toBe(false);
    cancel.abort("stop");
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe("stop");
    // Aborted, it follows nothing any more.
    expect(getEventListeners(other.signal, "abort")).toHaveLength(0);
  });

  it("is aborted at once when a source already is", () => {
    const cancel = new AbortController();
    cancel.abort("gone");
    const other = new AbortController();
    const link = new LinkedAbort([other.signal, cancel.signal]);
    expect(link.signal.reason).toBe("gone");
    expect(getEventListeners(other.signal, "abort")).toHaveLength(0);
  });

  it("aborts after its time with the reason given", () => {
    vi.useFakeTimers();
    const link = new LinkedAbort();
    link.abortAfter(1_000, () => new DOMException("late", "TimeoutError"));
    vi.advanceTimersByTime(999);
    expect(link.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect((link.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("lets go of its sources and its timer when disposed, and no longer aborts", () => {
    vi.useFakeTimers();
    const cancel = new AbortController();
    const link = new LinkedAbort([cancel.signal]);
    link.abortAfter(1_000, () => "late");
    expect(getEventListeners(cancel.signal, "abort")).toHaveLength(1);
    link.dispose();
    expect(getEventListeners(cancel.signal, "abort")).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    cancel.abort();
    vi.advanceTimersByTime(1_000);
    expect(link.signal.aborted).toBe(false);
  });
});
