// Reading and writing one setting of a node's data by its path (`["rules", 0, "label"]`).
import type { SettingPath } from "./backend-shared.js";
import { refuse } from "./document-errors.js";

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return value !== null && typeof value === "object";
}

function checkSegment(container: Container, segment: string | number): void {
  if (Array.isArray(container)) {
    if (typeof segment !== "number" || !Number.isInteger(segment) || segment < 0)
      refuse("EDITOR_SETTING_PATH_INVALID", { path: String(segment) });
  } else if (typeof segment !== "string" || segment === "__proto__") {
    refuse("EDITOR_SETTING_PATH_INVALID", { path: String(segment) });
  }
}

/** The value at a path, or undefined. */
export function getAtPath(root: unknown, path: SettingPath): unknown {
  let current = root;
  for (const segment of path) {
    if (!isContainer(current) || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/**
 * Sets the value at a path inside `root` (an immer draft), creating the objects and lists on the
 * way (a list where the next segment is a number). `undefined` removes the setting: a key is
 * deleted, a list member is taken out.
 */
export function setAtPath(root: Record<string, unknown>, path: SettingPath, value: unknown): void {
  if (path.length === 0) refuse("EDITOR_SETTING_PATH_INVALID", { path: "" });
  let current: Container = root;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i] as string | number;
    checkSegment(current, segment);
    const next: unknown = (current as Record<string | number, unknown>)[segment];
    if (next === undefined) {
      if (value === undefined) return; // removing something that is not there
      const created: Container = typeof path[i + 1] === "number" ? [] : {};
      (current as Record<string | number, unknown>)[segment] = created;
      current = (current as Record<string | number, unknown>)[segment] as Container;
    } else if (isContainer(next)) current = next;
    else refuse("EDITOR_SETTING_PATH_INVALID", { path: path.slice(0, i + 1).join(".") });
  }
  const last = path.at(-1) as string | number;
  checkSegment(current, last);
  if (Array.isArray(current)) {
    const index = last as number;
    if (value === undefined) {
      if (index < current.length) current.splice(index, 1);
    } else if (index > current.length) refuse("EDITOR_SETTING_PATH_INVALID", { path: path.join(".") });
    else current[index] = value;
  } else if (value === undefined) delete current[last as string];
  else current[last as string] = value;
}
