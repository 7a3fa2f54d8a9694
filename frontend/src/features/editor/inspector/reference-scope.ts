// The context keys a document's templates use, for {{context.…}} completion (the run's caller
// supplies the context, so the keys already used are the best guess there is).
import { nodeReferences, type WorkflowDocument, type WorkflowNode } from "../document";

/** The context keys a node's templates use, kept per data object: a move leaves `data` as it
 * was (immer shares it), so dragging nodes does not rescan their settings. */
const contextKeyCache = new WeakMap<object, string[]>();

function nodeContextKeys(node: WorkflowNode): string[] {
  let keys = contextKeyCache.get(node.data);
  if (!keys) {
    keys = [];
    for (const found of nodeReferences(node)) {
      const key = found.reference?.root === "context" ? found.reference.path[0] : undefined;
      if (key !== undefined) keys.push(key);
    }
    contextKeyCache.set(node.data, keys);
  }
  return keys;
}

/** Every context key the document's templates use, sorted, for {{context.…}} completion. */
export function documentContextKeys(document: WorkflowDocument): string[] {
  const keys = new Set<string>();
  for (const node of document.nodes) for (const key of nodeContextKeys(node)) keys.add(key);
  return [...keys].sort();
}
