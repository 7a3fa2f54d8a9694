// What the editor needs to know about each node type besides its settings schema: which settings
// hold {{…}} references or name state fields, and which outgoing handles it has. Plain data and
// pure functions without imports, so the studio's frontend imports this very file (the validator
// keeps its own code; node-type-facts.test.ts checks both agree).
//
// A setting path is dot-separated names; `*` stands for every member of a list or object.

/** Settings whose strings (at any depth, values only) may hold {{…}} references. */
export type TemplateSettings = readonly string[];

/**
 * A setting that names state fields: `name` is a field name, `path` a state path whose first name
 * is the field (`user.age`), `key` means the keys of the object at `path` are field names.
 * `writes` marks where the node writes the field; the others read or declare it.
 */
export interface FieldSetting {
  path: string;
  form: "name" | "path" | "key";
  writes: boolean;
}

/**
 * The outgoing handles: `single` (one unlabelled output), `none` (End), `fixed` labels (For each),
 * `labels` named in the node's settings (Condition: each rule's label and the default label), or
 * `free` labels chosen on the edges, with suggestions from the keys at `suggestions` (Decision).
 */
export type OutputRule =
  | { kind: "single" }
  | { kind: "none" }
  | { kind: "fixed"; labels: readonly string[] }
  | { kind: "labels"; paths: readonly string[] }
  | { kind: "free"; suggestions: string };

export interface NodeTypeFacts {
  templates: TemplateSettings;
  fields: readonly FieldSetting[];
  outputs: OutputRule;
  /** Whether edges may end at it (Start takes none). */
  input: boolean;
  /** Calls out of the studio: idempotency keys and the result ledger apply. */
  sideEffect: boolean;
  /** May be the body of a For each. */
  forEachBody: boolean;
}

const writes = (path: string): FieldSetting => ({ path, form: "name", writes: true });
const single = { kind: "single" } as const;
const flow = { outputs: single, input: true, sideEffect: false, forEachBody: false };

export const NODE_TYPE_FACTS = {
  start: { ...flow, templates: [], fields: [{ path: "inputs.*", form: "name", writes: false }], input: false },
  end: {
    ...flow,
    templates: [],
    fields: [{ path: "outputs.*", form: "name", writes: false }],
    outputs: { kind: "none" },
  },
  llm: {
    ...flow,
    templates: ["system", "prompt"],
    fields: [writes("output_field")],
    sideEffect: true,
    forEachBody: true,
  },
  tool: {
    ...flow,
    // url, headers and body for kind http; args for kind python (each kind has only its own).
    templates: ["url", "headers", "body", "args"],
    fields: [writes("output_field")],
    sideEffect: true,
    forEachBody: true,
  },
  code: { ...flow, templates: [], fields: [{ path: "outputs.*", form: "name", writes: true }], forEachBody: true },
  condition: {
    ...flow,
    templates: ["rules.*.conditions.*.value"],
    fields: [{ path: "rules.*.conditions.*.field", form: "path", writes: false }],
    outputs: { kind: "labels", paths: ["rules.*.label", "default_label"] },
  },
  decision: {
    ...flow,
    templates: ["system", "prompt"],
    fields: [writes("output_field")],
    outputs: { kind: "free", suggestions: "label_descriptions" },
    sideEffect: true,
  },
  for_each: {
    ...flow,
    templates: ["items"],
    fields: [writes("output_field")],
    outputs: { kind: "fixed", labels: ["item", "done"] },
  },
  join: { ...flow, templates: [], fields: [] },
  human: { ...flow, templates: ["message"], fields: [writes("output_field")] },
  send_email: {
    ...flow,
    templates: ["to", "cc", "subject", "body", "from"],
    fields: [writes("output_field")],
    sideEffect: true,
    forEachBody: true,
  },
  subgraph: {
    ...flow,
    templates: ["input"],
    fields: [{ path: "output", form: "key", writes: true }],
    forEachBody: true,
  },
} as const satisfies Record<string, NodeTypeFacts>;

export type FactsNodeType = keyof typeof NODE_TYPE_FACTS;

/** The facts of a node type, or undefined for a type that does not exist. */
export function factsOf(type: string): NodeTypeFacts | undefined {
  return Object.hasOwn(NODE_TYPE_FACTS, type) ? NODE_TYPE_FACTS[type as FactsNodeType] : undefined;
}

export type SettingPath = (string | number)[];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The values at a setting path in a node's data, with their concrete paths; absent ones are skipped. */
export function valuesAt(data: unknown, pattern: string): { path: SettingPath; value: unknown }[] {
  let found: { path: SettingPath; value: unknown }[] = [{ path: [], value: data }];
  for (const segment of pattern.split(".")) {
    const next: typeof found = [];
    for (const { path, value } of found) {
      if (segment === "*") {
        if (Array.isArray(value)) {
          for (const [i, member] of value.entries()) next.push({ path: [...path, i], value: member });
        } else if (isObject(value))
          for (const [key, member] of Object.entries(value)) next.push({ path: [...path, key], value: member });
      } else if (isObject(value) && Object.hasOwn(value, segment) && value[segment] !== undefined) {
        next.push({ path: [...path, segment], value: value[segment] });
      }
    }
    found = next;
  }
  return found;
}

/** Every string inside a value (values only, never keys), depth first in document order. */
export function stringsIn(value: unknown, at: SettingPath = []): { path: SettingPath; text: string }[] {
  const out: { path: SettingPath; text: string }[] = [];
  // An explicit stack keeps hostile nesting from blowing the call stack.
  const stack: { path: SettingPath; value: unknown }[] = [{ path: at, value }];
  while (stack.length > 0) {
    const { path, value: current } = stack.pop() as { path: SettingPath; value: unknown };
    if (typeof current === "string") out.push({ path, text: current });
    else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ path: [...path, i], value: current[i] });
    } else if (isObject(current)) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i] as [string, unknown];
        stack.push({ path: [...path, key], value: member });
      }
    }
  }
  return out;
}

/** Every string of a node's data that may hold {{…}} references, with its setting path. */
export function templateTexts(type: string, data: unknown): { path: SettingPath; text: string }[] {
  const facts = factsOf(type);
  if (!facts) return [];
  return facts.templates.flatMap((pattern) => valuesAt(data, pattern).flatMap((hit) => stringsIn(hit.value, hit.path)));
}

/** A state field named in a setting (not in a template): its name and where. */
export interface FieldMention {
  name: string;
  path: SettingPath;
  form: FieldSetting["form"];
  writes: boolean;
}

/** The state fields a node's settings name outside templates (written fields, inputs, condition fields…). */
export function fieldMentions(type: string, data: unknown): FieldMention[] {
  const facts = factsOf(type);
  if (!facts) return [];
  const out: FieldMention[] = [];
  for (const setting of facts.fields) {
    for (const hit of valuesAt(data, setting.path)) {
      if (setting.form === "key") {
        if (!isObject(hit.value)) continue;
        for (const key of Object.keys(hit.value))
          out.push({ name: key, path: [...hit.path, key], form: "key", writes: setting.writes });
      } else if (typeof hit.value === "string" && hit.value !== "") {
        const name = setting.form === "path" ? (hit.value.split(".")[0] as string) : hit.value;
        out.push({ name, path: hit.path, form: setting.form, writes: setting.writes });
      }
    }
  }
  return out;
}

/** The labels a node's settings give its outgoing handles (Condition), the fixed ones (For each), or []. */
export function declaredOutputLabels(type: string, data: unknown): string[] {
  const rule = factsOf(type)?.outputs;
  if (!rule) return [];
  if (rule.kind === "fixed") return [...rule.labels];
  const texts =
    rule.kind === "labels"
      ? rule.paths.flatMap((pattern) => valuesAt(data, pattern).map((hit) => hit.value))
      : rule.kind === "free"
        ? valuesAt(data, rule.suggestions).flatMap((hit) => (isObject(hit.value) ? Object.keys(hit.value) : []))
        : [];
  const labels: string[] = [];
  for (const text of texts) {
    if (typeof text === "string" && text.trim() !== "" && !labels.includes(text.trim())) labels.push(text.trim());
  }
  return labels;
}
