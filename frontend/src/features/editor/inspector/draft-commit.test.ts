import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadedStore } from "../document/document.fixtures";
import { JOURNAL_MAX_WAIT_MS } from "../document/journal/journal-writer";
import { createDraftCommitter, DRAFT_IDLE_MS, DRAFT_MAX_WAIT_MS } from "./draft-commit";

describe("typed text written to the document after a pause", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] }));
  afterEach(() => vi.useRealTimers());

  /** The label typed letter by letter, one key every `gapMs`, into a real document store. */
  async function typeLabel(text: string, gapMs: number) {
    const store = loadedStore();
    const nodeId = store.getState().content.document.nodes[0]?.id as string;
    let changes = 0;
    store.subscribe((now, before) => {
      if (now.content !== before.content) changes++;
    });
    const writes: number[] = [];
    const started = Date.now();
    const draft = createDraftCommitter<string>((label) => {
      writes.push(Date.now() - started);
      store.getState().dispatch({ type: "rename-node", nodeId, label });
    });
    const keys: number[] = [];
    for (let i = 1; i <= text.length; i++) {
      keys.push(Date.now() - started);
      draft.change(text.slice(0, i));
      await vi.advanceTimersByTimeAsync(gapMs);
    }
    await vi.runAllTimersAsync();
    return { store, nodeId, changes, writes, keys };
  }

  it("writes a burst of 20 keystrokes a few times instead of 20, as one undo step with the last text", async () => {
    const { store, nodeId, changes, writes } = await typeLabel("abcdefghijklmnopqrst", 50);
    // 20 keys over a second: at most one write per DRAFT_MAX_WAIT_MS, and one at the end.
    expect(changes).toBe(writes.length);
    expect(changes).toBeLessThanOrEqual(Math.ceil((20 * 50) / DRAFT_MAX_WAIT_MS) + 1);
    expect(changes).toBeGreaterThanOrEqual(2);
    const node = store.getState().content.document.nodes.find((n) => n.id === nodeId);
    expect(node?.data.label).toBe("abcdefghijklmnopqrst");
    expect(store.getState().history.past).toHaveLength(1);
    store.getState().undo();
    expect(store.getState().history.past).toHaveLength(0);
  });

  it("writes every keystroke within DRAFT_MAX_WAIT_MS, leaving the journal the rest of its second", async () => {
    const { keys, writes } = await typeLabel("a slow and steady label", 90);
    for (const at of keys) {
      const writtenAt = writes.find((w) => w >= at) as number;
      expect(writtenAt - at).toBeLessThanOrEqual(DRAFT_MAX_WAIT_MS);
    }
    expect(DRAFT_MAX_WAIT_MS).toBeLessThan(JOURNAL_MAX_WAIT_MS);
  });

  it("writes after a pause of DRAFT_IDLE_MS, on flush at once, and never after cancel", async () => {
    const written: string[] = [];
    const draft = createDraftCommitter<string>((v) => written.push(v));
    draft.change("a");
    await vi.advanceTimersByTimeAsync(DRAFT_IDLE_MS - 1);
    expect(written).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(written).toEqual(["a"]);
    draft.change("ab");
    expect(draft.pending()).toBe(true);
    draft.flush();
    expect(written).toEqual(["a", "ab"]);
    expect(draft.pending()).toBe(false);
    draft.flush();
    expect(written).toEqual(["a", "ab"]);
    draft.change("abc");
    draft.cancel();
    await vi.runAllTimersAsync();
    expect(written).toEqual(["a", "ab"]);
  });
});
