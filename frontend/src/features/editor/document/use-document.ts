// React access to a document store: one store per open editor (a version preview gets its own),
// handed down by context. Components read with selectors and change it only through dispatch.
import { createContext, createElement, type ReactNode, useContext } from "react";
import { useStore } from "zustand";
import type { DocumentState, DocumentStore } from "./document-store.js";

const DocumentStoreContext = createContext<DocumentStore | null>(null);

export function DocumentStoreProvider({ store, children }: { store: DocumentStore; children: ReactNode }) {
  return createElement(DocumentStoreContext.Provider, { value: store }, children);
}

export function useDocumentStore(): DocumentStore {
  const store = useContext(DocumentStoreContext);
  if (!store) throw new Error("useDocument needs a DocumentStoreProvider above it");
  return store;
}

/** A slice of the document state; wrap selectors that build new arrays in zustand's useShallow. */
export function useDocument<T>(selector: (state: DocumentState) => T): T {
  return useStore(useDocumentStore(), selector);
}

/** The dispatch function (stable: it never changes for a store). */
export function useDispatch(): DocumentState["dispatch"] {
  return useDocument((s) => s.dispatch);
}
