// References in node text: {{state.a.b}}, {{item}}, {{item.x}}, {{index}}, {{context.x}}.
// Rendering is a pure data lookup in one pass: no expression is evaluated, inherited properties
// are never read, and rendered values are never scanned again.

export const REFERENCE_ROOTS = ["state", "item", "index", "context"] as const;
export type ReferenceRoot = (typeof REFERENCE_ROOTS)[number];

export interface Reference {
  raw: string;
  root: ReferenceRoot;
  path: string[];
}

export interface TemplateScope {
  state: Record<string, unknown>;
  item?: unknown;
  index?: number;
  context?: Record<string, unknown>;
}

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SEGMENT = /^(?:[A-Za-z_][A-Za-z0-9_-]*|\d+)$/;

export class TemplateError extends Error {
  readonly reference: string;
  constructor(reference: string, reason: string) {
    super(`{{${reference}}} ${reason}`);
    this.reference = reference;
  }
}

/** Parses one reference body such as `state.a.b`; throws TemplateError when it is not one. */
export function parseReference(body: string): Reference {
  const parts = body.split(".");
  const [root, ...path] = parts;
  if (!root || !(REFERENCE_ROOTS as readonly string[]).includes(root)) {
    throw new TemplateError(body, `is not a reference: it must start with ${REFERENCE_ROOTS.join(", ")}`);
  }
  if (path.some((segment) => !SEGMENT.test(segment))) {
    throw new TemplateError(body, "has a path segment that is not a name or an index");
  }
  if (root === "index" && path.length > 0) throw new TemplateError(body, "cannot have a path: index is a number");
  return { raw: body, root: root as ReferenceRoot, path };
}

/** Every reference in a text, in order. Throws TemplateError on the first malformed one. */
export function findReferences(text: string): Reference[] {
  return [...text.matchAll(REFERENCE)].map((match) => parseReference(match[1] ?? ""));
}

function lookup(reference: Reference, scope: TemplateScope): unknown {
  let value: unknown =
    reference.root === "state"
      ? scope.state
      : reference.root === "context"
        ? (scope.context ?? {})
        : reference.root === "item"
          ? scope.item
          : scope.index;
  for (const segment of reference.path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

function toText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Renders a text template. A missing path renders as the empty string. */
export function renderText(template: string, scope: TemplateScope): string {
  return template.replace(REFERENCE, (_match, body: string) => toText(lookup(parseReference(body.trim()), scope)));
}

/**
 * Renders a value: a string that is exactly one reference yields the referenced value itself
 * (a list stays a list; missing is null); other strings render as text; arrays and objects are
 * rendered member by member. Keys are never rendered.
 */
export function renderValue(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === "string") {
    const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(value);
    if (whole) return lookup(parseReference(whole[1] ?? ""), scope) ?? null;
    return renderText(value, scope);
  }
  if (Array.isArray(value)) return value.map((member) => renderValue(member, scope));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: renderValue(member, scope),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** Every reference in any string inside a JSON value. */
export function findReferencesDeep(value: unknown): Reference[] {
  if (typeof value === "string") return findReferences(value);
  if (Array.isArray(value)) return value.flatMap(findReferencesDeep);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(findReferencesDeep);
  return [];
}
