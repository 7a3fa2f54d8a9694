// Ids for new nodes, edges and notes: readable (`llm_3`), within the backend's id rule
// (1-64 letters, digits, '_' or '-'), and never one already taken in the document.
import type { EditorContent } from "./document-types.js";

const ELEMENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether an id is one the backend accepts for a node or an edge ("__…" names are its own). */
export function isElementId(id: unknown): id is string {
  return typeof id === "string" && ELEMENT_ID.test(id) && !id.startsWith("__") && !(id in Object.prototype);
}

export interface IdAllocator {
  /** A free id: `prefix` itself when `bare` and free, otherwise `prefix_N` with the lowest free N. */
  next(prefix: string, bare?: boolean): string;
  /** Marks an id as taken. */
  take(id: string): void;
  has(id: string): boolean;
}

export function idAllocator(taken: Iterable<string>): IdAllocator {
  const used = new Set(taken);
  const counters = new Map<string, number>();
  return {
    next(prefix, bare = false) {
      if (bare && !used.has(prefix)) {
        used.add(prefix);
        return prefix;
      }
      let n = counters.get(prefix) ?? 1;
      while (used.has(`${prefix}_${n}`)) n++;
      const id = `${prefix}_${n}`;
      counters.set(prefix, n + 1);
      used.add(id);
      return id;
    },
    take(id) {
      used.add(id);
    },
    has(id) {
      return used.has(id);
    },
  };
}

/**
 * Node and note ids share one namespace (the canvas keys both by id), and a node id must not be a
 * state field's name (the graph would have two channels of that name).
 */
export function nodeIdAllocator(content: EditorContent): IdAllocator {
  const { document, notes } = content;
  return idAllocator([
    ...document.nodes.map((n) => n.id),
    ...notes.map((n) => n.id),
    ...document.state.map((f) => f.name),
  ]);
}

export function edgeIdAllocator(content: EditorContent): IdAllocator {
  return idAllocator(content.document.edges.map((e) => e.id));
}
