import { describe, expect, it } from "vitest";
import { COMMANDS, contentText, loadedStore, sampleDocument } from "./document.fixtures.js";
import {
  historyItems,
  selectCanRedo,
  selectCanUndo,
  selectCurrentEntryId,
  selectIsDirty,
  selectSavedVersion,
} from "./document-selectors.js";
import { createDocumentStore } from "./document-store.js";

describe("document store commands", () => {
  it.each(COMMANDS)(
    "%s does its edit, and undo and redo give back each side byte for byte",
    (_name, command, check) => {
      const store = loadedStore();
      const before = contentText(store);
      const result = store.getState().dispatch(command);
      expect(result).toMatchObject({ ok: true, changed: true });
      check(store.getState().content);
      const after = contentText(store);
      expect(store.getState().history.past).toHaveLength(1);
      expect(store.getState().undo()).toBe(true);
      expect(contentText(store)).toBe(before);
      expect(store.getState().redo()).toBe(true);
      expect(contentText(store)).toBe(after);
    },
  );

  it("covers every command there is", async () => {
    const { COMMAND_TYPES } = await import("./commands/apply-command.js");
    expect(new Set(COMMANDS.map(([, c]) => c.type))).toEqual(new Set(COMMAND_TYPES.filter((t) => t !== "update-note")));
  });

  it("updates a note, and a note's text typed key by key is one undo step", () => {
    const store = loadedStore();
    const { dispatch } = store.getState();
    dispatch({ type: "add-note", note: { position: { x: 0, y: 0 } } });
    for (const text of ["H", "He", "Hel", "Hello"]) dispatch({ type: "update-note", id: "note_1", changes: { text } });
    dispatch({ type: "update-note", id: "note_1", changes: { size: { width: 300, height: 120 }, color: "blue" } });
    expect(store.getState().content.notes[0]).toEqual({
      id: "note_1",
      position: { x: 0, y: 0 },
      text: "Hello",
      size: { width: 300, height: 120 },
      color: "blue",
    });
    expect(store.getState().history.past.map((e) => e.command)).toEqual(["add-note", "update-note", "update-note"]);
    store.getState().undo();
    expect(store.getState().content.notes[0]?.text).toBe("Hello");
    store.getState().undo();
    expect(store.getState().content.notes[0]?.text).toBe("");
  });

  it("gives the created ids to the caller and leaves history alone when nothing changes", () => {
    const store = loadedStore();
    const added = store.getState().dispatch({ type: "add-node", node: { type: "start", position: { x: 0, y: 0 } } });
    expect(added).toEqual({ ok: true, changed: true, created: ["start_1"] });
    const same = store.getState().dispatch({ type: "move-nodes", positions: [{ id: "draft", x: 200, y: 0 }] });
    expect(same).toEqual({ ok: true, changed: false, created: [] });
    expect(store.getState().history.past).toHaveLength(1);
  });
});

describe("undo history", () => {
  it("merges keystrokes in one setting into one step, until the field is left", () => {
    const store = loadedStore();
    const { dispatch } = store.getState();
    const type = (text: string) =>
      dispatch({ type: "update-node-data", nodeId: "draft", path: ["prompt"], value: text });
    type("A");
    type("An");
    type("Ans");
    expect(store.getState().history.past).toHaveLength(1);
    store.getState().closeGroup();
    type("Answ");
    expect(store.getState().history.past).toHaveLength(2);
    dispatch({ type: "update-node-data", nodeId: "draft", path: ["system"], value: "x" });
    type("Answe");
    expect(store.getState().history.past).toHaveLength(4);
    store.getState().undo();
    store.getState().undo();
    store.getState().undo();
    expect(store.getState().content.document.nodes[1]?.data.prompt).toBe("Ans");
    store.getState().undo();
    expect(store.getState().content.document.nodes[1]?.data.prompt).toBe(sampleDocument().nodes[1]?.data.prompt);
  });

  it("never merges into the step that was saved", () => {
    const store = loadedStore();
    const { dispatch } = store.getState();
    dispatch({ type: "update-node-data", nodeId: "draft", path: ["prompt"], value: "a" });
    store.getState().markSaved(4);
    dispatch({ type: "update-node-data", nodeId: "draft", path: ["prompt"], value: "ab" });
    expect(store.getState().history.past).toHaveLength(2);
    expect(selectIsDirty(store.getState())).toBe(true);
    store.getState().undo();
    expect(selectIsDirty(store.getState())).toBe(false);
  });

  it("tracks unsaved changes against the last save and keeps the saved version for If-Match", () => {
    const store = loadedStore();
    const state = () => store.getState();
    expect([selectIsDirty(state()), selectSavedVersion(state())]).toEqual([false, 3]);
    state().dispatch({ type: "rename-node", nodeId: "draft", label: "First" });
    expect(selectIsDirty(state())).toBe(true);
    state().undo();
    expect(selectIsDirty(state())).toBe(false);
    state().redo();
    expect(selectIsDirty(state())).toBe(true);
    state().markSaved(4);
    expect([selectIsDirty(state()), selectSavedVersion(state())]).toEqual([false, 4]);
    state().undo();
    expect(selectIsDirty(state())).toBe(true);
    // A new edit after undoing past the save drops the saved step: dirty until the next save.
    state().dispatch({ type: "rename-node", nodeId: "draft", label: "Second" });
    expect(selectIsDirty(state())).toBe(true);
  });

  it("marks the step a save sent as saved, not the edits made while it was on its way", () => {
    const store = loadedStore();
    const state = () => store.getState();
    state().dispatch({ type: "rename-node", nodeId: "draft", label: "Sent" });
    // The save closes the group first, so later keystrokes make a step of their own.
    state().closeGroup();
    const sent = state().history.past.at(-1)?.id as number;
    state().dispatch({ type: "rename-node", nodeId: "draft", label: "Typed meanwhile" });
    state().markSaved(4, sent);
    expect([selectIsDirty(state()), selectSavedVersion(state())]).toEqual([true, 4]);
    expect(selectCurrentEntryId(state())).not.toBe(sent);
    state().undo();
    expect(selectIsDirty(state())).toBe(false);
    expect(selectCurrentEntryId(state())).toBe(sent);
  });

  it("after a rebase on the server's version, stays unsaved whatever is undone, until saved", () => {
    const store = loadedStore();
    const state = () => store.getState();
    state().dispatch({ type: "rename-node", nodeId: "draft", label: "Merged" });
    state().rebase(7);
    expect([selectIsDirty(state()), selectSavedVersion(state())]).toEqual([true, 7]);
    while (state().undo());
    expect(selectIsDirty(state())).toBe(true);
    state().redo();
    state().markSaved(8);
    expect([selectIsDirty(state()), selectSavedVersion(state())]).toEqual([false, 8]);
  });

  it("keeps a bounded number of steps, dropping the oldest", () => {
    const store = loadedStore(sampleDocument(), 5);
    for (let i = 0; i < 8; i++)
      store.getState().dispatch({ type: "move-nodes", positions: [{ id: "draft", x: i, y: i }] });
    expect(store.getState().history.past).toHaveLength(5);
    while (store.getState().undo());
    expect(store.getState().content.document.nodes[1]?.position).toEqual({ x: 2, y: 2 });
    expect(selectIsDirty(store.getState())).toBe(true);
  });

  it("lists labelled steps, done and undone, and jumps to any of them", () => {
    const store = loadedStore();
    const { dispatch } = store.getState();
    dispatch({ type: "add-node", node: { type: "join", position: { x: 0, y: 0 } } });
    dispatch({ type: "connect", source: "draft", target: "join_1" });
    dispatch({ type: "rename-state-field", from: "answer", to: "reply" });
    store.getState().undo();
    expect(historyItems(store.getState())).toEqual([
      { id: 1, labelKey: "editor.history.addNode", params: { type: "join" }, done: true, current: false },
      {
        id: 2,
        labelKey: "editor.history.connect",
        params: { source: "draft", target: "join_1", label: "" },
        done: true,
        current: true,
      },
      {
        id: 3,
        labelKey: "editor.history.renameStateField",
        params: { from: "answer", to: "reply" },
        done: false,
        current: false,
      },
    ]);
    const start = JSON.stringify(sampleDocument());
    expect(store.getState().jumpTo(null)).toBe(true);
    expect(JSON.stringify(store.getState().content.document)).toBe(start);
    expect([selectCanUndo(store.getState()), selectCanRedo(store.getState())]).toEqual([false, true]);
    expect(store.getState().jumpTo(3)).toBe(true);
    expect(store.getState().content.document.state[1]?.name).toBe("reply");
    expect(store.getState().jumpTo(99)).toBe(false);
    expect(store.getState().undo()).toBe(true);
    expect(store.getState().redo()).toBe(true);
    expect(store.getState().redo()).toBe(false);
  });

  it("hands out frozen documents: nothing but a command can change them", () => {
    const store = loadedStore();
    const { document } = store.getState().content;
    expect(() => {
      (document.nodes[0] as { id: string }).id = "changed";
    }).toThrow(TypeError);
    const value = { nested: { list: [1] } };
    store.getState().dispatch({ type: "update-node-data", nodeId: "draft", path: ["json_schema"], value });
    value.nested.list.push(2); // the caller's object stays the caller's
    expect(store.getState().content.document.nodes[1]?.data.json_schema).toEqual({ nested: { list: [1] } });
  });
});

describe("loading and read-only previews", () => {
  it("refuses commands before a document is loaded and in a read-only preview", () => {
    const empty = createDocumentStore();
    expect(empty.getState().dispatch({ type: "rename-node", nodeId: "a", label: "b" })).toEqual({
      ok: false,
      error: { code: "EDITOR_NOT_LOADED" },
    });
    const preview = createDocumentStore();
    preview.getState().load({ workflowId: "wf", version: 2, document: sampleDocument(), readOnly: true });
    expect(preview.getState().dispatch({ type: "rename-node", nodeId: "draft", label: "b" })).toEqual({
      ok: false,
      error: { code: "EDITOR_READ_ONLY" },
    });
    expect(selectCanUndo(preview.getState())).toBe(false);
  });

  it("refuses a document that is not a workflow, keeping what it had", () => {
    const store = loadedStore();
    const before = contentText(store);
    const result = store.getState().load({ workflowId: "wf_2", version: 1, document: { name: "x", nodes: "no" } });
    expect(result).toEqual({
      ok: false,
      error: { code: "EDITOR_DOCUMENT_INVALID", params: { path: "nodes", detail: expect.any(String) } },
    });
    expect(contentText(store)).toBe(before);
    expect(store.getState().workflowId).toBe("wf_1");
  });
});
