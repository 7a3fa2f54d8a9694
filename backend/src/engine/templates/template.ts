// References in node text: {{state.a.b}}, {{item}}, {{item.x}}, {{index}}, {{context.x}}.
// Rendering is a pure data lookup in one pass: no expression is evaluated, inherited properties
// are never read, and rendered values are never scanned again. Texts are scanned by hand in one
// linear pass: a regex with neighbouring whitespace quantifiers backtracks cubically on "{{" and
// a long run of spaces, and prompts may be 100,000 characters long.

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

/** One {{…}} in a text: where it starts and ends, and what is inside, without surrounding whitespace. */
export interface TemplateMatch {
  start: number;
  end: number;
  body: string;
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Every {{…}} in a text, left to right: the same matches as /\{\{\s*([^{}]*?)\s*\}\}/g (a body holds
 * no brace and ends at the first "}}"), found in one pass. Each character is looked at a bounded
 * number of times, whatever the text.
 */
export function scanTemplate(text: string): TemplateMatch[] {
  const matches: TemplateMatch[] = [];
  const length = text.length;
  let start = text.indexOf("{{");
  while (start !== -1) {
    let stop = start + 2;
    while (stop < length) {
      const code = text.charCodeAt(stop);
      if (code === OPEN_BRACE || code === CLOSE_BRACE) break;
      stop++;
    }
    if (stop + 1 < length && text.charCodeAt(stop) === CLOSE_BRACE && text.charCodeAt(stop + 1) === CLOSE_BRACE) {
      matches.push({ start, end: stop + 2, body: text.slice(start + 2, stop).trim() });
      start = text.indexOf("{{", stop + 2);
    } else if (stop === start + 2 && stop < length && text.charCodeAt(stop) === OPEN_BRACE) {
      // "{{{": a reference may still open one character later.
      start += 1;
    } else {
      // No "{{" can open between here and the brace (or the end) that stopped the body.
      start = text.indexOf("{{", stop);
    }
  }
  return matches;
}

/** The body of a text that is exactly one {{…}} (whitespace inside allowed), or undefined. */
export function wholeReferenceBody(text: string): string | undefined {
  if (!text.startsWith("{{")) return undefined;
  const first = scanTemplate(text)[0];
  return first && first.start === 0 && first.end === text.length ? first.body : undefined;
}

/** Every reference in a text, in order. Throws TemplateError on the first malformed one. */
export function findReferences(text: string): Reference[] {
  return scanTemplate(text).map((match) => parseReference(match.body));
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
  let rendered = "";
  let copied = 0;
  for (const match of scanTemplate(template)) {
    rendered += template.slice(copied, match.start) + toText(lookup(parseReference(match.body), scope));
    copied = match.end;
  }
  return rendered + template.slice(copied);
}

/**
 * Renders a value: a string that is exactly one reference yields the referenced value itself
 * (a list stays a list; missing is null); other strings render as text; arrays and objects are
 * rendered member by member. Keys are never rendered.
 */
export function renderValue(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === "string") {
    const whole = wholeReferenceBody(value);
    if (whole !== undefined) return lookup(parseReference(whole), scope) ?? null;
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

/** Every reference in any string inside a JSON value, depth first in document order. */
export function findReferencesDeep(value: unknown): Reference[] {
  const found: Reference[] = [];
  // An explicit stack (members pushed in reverse) keeps document order without recursion.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "string") {
      for (const match of scanTemplate(current)) found.push(parseReference(match.body));
    } else if (current !== null && typeof current === "object") {
      const members = Array.isArray(current) ? current : Object.values(current);
      for (let i = members.length - 1; i >= 0; i--) stack.push(members[i]);
    }
  }
  return found;
}
