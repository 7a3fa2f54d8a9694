// Counting the objects of a kind that are still alive: v8.queryObjects() collects garbage fully
// first, so what it counts is what something still refers to (never time or bytes). Shared by the
// tests of what ended work leaves behind.
import v8 from "node:v8";

/** How many objects made by `kind` (or a subclass) are alive after a full collection. */
export function liveObjects(kind: abstract new (...args: never[]) => unknown): number {
  return v8.queryObjects(kind as never, { format: "count" }) as number;
}
