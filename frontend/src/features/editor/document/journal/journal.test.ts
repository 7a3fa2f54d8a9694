import "fake-indexeddb/auto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contentText, loadedStore, sampleDocument } from "../document.fixtures.js";
import { selectIsDirty, selectSavedVersion } from "../document-selectors.js";
import { createDocumentStore } from "../document-store.js";
import { journalOffer, journalRecordOf } from "./journal-record.js";
import { type JournalStorage, openJournalStorage } from "./journal-storage.js";
import { JOURNAL_MAX_WAIT_MS, startJournalWriter } from "./journal-writer.js";

let database = 0;
/** A fresh database per test: real IndexedDB semantics (fake-indexeddb), nothing shared. */
const freshName = () => `journal-test-${++database}`;

describe("journal storage", () => {
  it("keeps one record per workflow, keyed by the base version, across connections", async () => {
    const name = freshName();
    const storage = await openJournalStorage(name);
    const store = loadedStore();
    store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "One" });
    const first = journalRecordOf(store.getState(), 1000)!;
    await storage.put(first);
    await storage.put({ ...first, workflowId: "wf_other" });
    store.getState().markSaved(4);
    store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "Two" });
    await storage.put(journalRecordOf(store.getState(), 2000)!);
    storage.close();

    const again = await openJournalStorage(name);
    const found = await again.find("wf_1");
    expect(found?.baseVersion).toBe(4);
    expect(found?.content.document.nodes[1]?.data.label).toBe("Two");
    expect((await again.find("wf_other"))?.baseVersion).toBe(3);
    await again.clear("wf_1");
    expect(await again.find("wf_1")).toBeUndefined();
    expect(await again.find("wf_other")).toBeDefined();
    again.close();
  });
});

describe("journal writer", () => {
  let storage: JournalStorage;
  beforeEach(async () => {
    // Only the writer's clock is fake; IndexedDB keeps its own scheduling.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    storage = await openJournalStorage(freshName());
  });
  afterEach(() => {
    storage.close();
    vi.useRealTimers();
  });

  /** Lets the fake clock run, then waits for the writes it started. */
  async function advance(ms: number) {
    await vi.advanceTimersByTimeAsync(ms);
    await new Promise((resolve) => setImmediate(resolve));
  }

  it("writes a second after edits at the latest, even while they go on", async () => {
    const store = loadedStore();
    const writer = startJournalWriter({ store, storage });
    const label = (i: number) => store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: `L${i}` });
    // An edit every 100 ms for 3 seconds: the journal is never more than a second behind.
    for (let i = 0; i < 30; i++) {
      label(i);
      await advance(100);
      const journalled = await storage.find("wf_1");
      const behind = journalled ? i - Number(String(journalled.content.document.nodes[1]?.data.label).slice(1)) : i;
      expect(behind * 100).toBeLessThanOrEqual(JOURNAL_MAX_WAIT_MS);
    }
    await advance(1000);
    expect((await storage.find("wf_1"))?.content.document.nodes[1]?.data.label).toBe("L29");
    writer.dispose();
  });

  it("gives back a closed tab's edits and their undo history", async () => {
    const store = loadedStore();
    const writer = startJournalWriter({ store, storage });
    const { dispatch } = store.getState();
    dispatch({ type: "add-node", node: { type: "join", position: { x: 1, y: 2 } } });
    dispatch({ type: "connect", source: "draft", target: "join_1" });
    dispatch({ type: "update-node-data", nodeId: "draft", path: ["prompt"], value: "Chào {{state.question}} 👋" });
    const edited = contentText(store);
    await advance(JOURNAL_MAX_WAIT_MS);
    writer.dispose(); // the tab is gone; nothing flushed

    const reopened = createDocumentStore();
    const record = await storage.find("wf_1");
    const offer = journalOffer(record, { version: 3, document: sampleDocument() });
    expect(offer?.stale).toBe(false);
    expect(reopened.getState().restore(offer!.record)).toEqual({ ok: true });
    expect(contentText(reopened)).toBe(edited);
    expect(selectIsDirty(reopened.getState())).toBe(true);
    expect(selectSavedVersion(reopened.getState())).toBe(3);
    expect(reopened.getState().history.past.map((e) => e.command)).toEqual(["add-node", "connect", "update-node-data"]);
    while (reopened.getState().undo());
    expect(JSON.stringify(reopened.getState().content.document)).toBe(JSON.stringify(sampleDocument()));
    expect(selectIsDirty(reopened.getState())).toBe(false);
  });

  it("offers nothing when the journal holds the server's document, and says when the server moved on", async () => {
    const store = loadedStore();
    store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "Mine" });
    const record = journalRecordOf(store.getState(), 1)!;
    expect(journalOffer(record, { version: 3, document: record.content.document })).toBeUndefined();
    expect(journalOffer(record, { version: 5, document: sampleDocument() })).toEqual({ record, stale: true });
    expect(journalOffer(undefined, { version: 3, document: sampleDocument() })).toBeUndefined();
  });

  it("drops the journal once the document is saved or undone back to the saved version", async () => {
    const store = loadedStore();
    const writer = startJournalWriter({ store, storage });
    store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "A" });
    await writer.flush();
    expect(await storage.find("wf_1")).toBeDefined();
    store.getState().undo();
    await writer.flush();
    expect(await storage.find("wf_1")).toBeUndefined();
    store.getState().redo();
    await writer.flush();
    store.getState().markSaved(4);
    await advance(JOURNAL_MAX_WAIT_MS);
    expect(await storage.find("wf_1")).toBeUndefined();
    writer.dispose();
  });

  it("leaves an earlier session's journal alone until the first edit", async () => {
    const earlier = loadedStore();
    earlier.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "Earlier" });
    await storage.put(journalRecordOf(earlier.getState(), 1)!);
    const store = createDocumentStore();
    const writer = startJournalWriter({ store, storage });
    store.getState().load({ workflowId: "wf_1", version: 3, document: sampleDocument() });
    await advance(JOURNAL_MAX_WAIT_MS);
    expect((await storage.find("wf_1"))?.content.document.nodes[1]?.data.label).toBe("Earlier");
    writer.dispose();
  });

  it("writes a workflow's last edits when another one is opened in the same store", async () => {
    const store = loadedStore();
    const writer = startJournalWriter({ store, storage });
    store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "Last edit" });
    store.getState().load({ workflowId: "wf_2", version: 1, document: sampleDocument() });
    await writer.flush();
    expect((await storage.find("wf_1"))?.content.document.nodes[1]?.data.label).toBe("Last edit");
    expect(await storage.find("wf_2")).toBeUndefined();
    writer.dispose();
  });

  it("tells a failed write instead of throwing", async () => {
    const store = loadedStore();
    const failures: string[] = [];
    const writer = startJournalWriter({ store, storage, onError: (error) => failures.push(error.code) });
    storage.close();
    store.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "Lost?" });
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(failures).toEqual(["EDITOR_JOURNAL_FAILED"]);
    writer.dispose();
  });

  it("never journals a read-only preview", async () => {
    const store = createDocumentStore();
    const writer = startJournalWriter({ store, storage });
    store.getState().load({ workflowId: "wf_1", version: 2, document: sampleDocument(), readOnly: true });
    await writer.flush();
    expect(journalRecordOf(store.getState(), 0)).toBeUndefined();
    expect(await storage.find("wf_1")).toBeUndefined();
    writer.dispose();
  });
});
