// Settings are JSON: what a form hands a command is checked to be plain JSON, no deeper than the
// backend accepts, and copied so the store never shares (and freezes) an object its caller holds.
import { DOCUMENT_LIMITS } from "./backend-shared.js";
import { refuse } from "./document-errors.js";

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function setOwn(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  // defineProperty: a "__proto__" key stays an ordinary key instead of changing the prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of a JSON value whose nesting stays within `maxDepth` (an object or list is one level);
 * refuses anything else: functions, NaN, dates, class instances, cycles (as too deep).
 */
export function copyJsonValue(value: unknown, maxDepth: number = DOCUMENT_LIMITS.dataDepth): unknown {
  // Iterative, so a hostile 100,000-level value cannot blow the stack.
  const root: unknown[] = [undefined];
  const stack: { value: unknown; depth: number; into: Record<string, unknown> | unknown[]; key: string | number }[] = [
    { value, depth: 0, into: root, key: 0 },
  ];
  while (stack.length > 0) {
    const { value: current, depth, into, key } = stack.pop() as (typeof stack)[number];
    if (current === null || typeof current === "string" || typeof current === "boolean") setOwn(into, key, current);
    else if (typeof current === "number" && Number.isFinite(current)) setOwn(into, key, current);
    else if (current !== null && typeof current === "object" && (Array.isArray(current) || isPlainObject(current))) {
      if (depth + 1 > maxDepth) refuse("EDITOR_DATA_TOO_DEEP", { max: DOCUMENT_LIMITS.dataDepth });
      if (Array.isArray(current)) {
        const copy: unknown[] = new Array(current.length).fill(null);
        setOwn(into, key, copy);
        for (let i = 0; i < current.length; i++)
          stack.push({ value: current[i], depth: depth + 1, into: copy, key: i });
      } else {
        const copy: Record<string, unknown> = {};
        setOwn(into, key, copy);
        for (const [name, member] of Object.entries(current)) {
          if (member === undefined) continue; // as JSON.stringify drops it
          setOwn(copy, name, null); // reserves the key's place, so key order is kept
          stack.push({ value: member, depth: depth + 1, into: copy, key: name });
        }
      }
    } else refuse("EDITOR_VALUE_NOT_JSON");
  }
  return root[0];
}
