// From a node type's JSON Schema (GET /api/node-types, generated from the zod schema the backend
// validates with) to the fields of its settings form, and the checks each field shows inline. Only
// the JSON Schema the backend emits is read: objects, records, lists, strings, numbers, booleans,
// enums, consts and `oneOf` variants told apart by a `const` property (Tool's `kind`).

export type JsonSchema = Record<string, unknown>;

interface Common {
  description?: string;
  default?: unknown;
}

export type FieldSpec =
  | (Common & {
      kind: "string";
      minLength?: number;
      maxLength?: number;
      pattern?: string;
      format?: string;
    })
  | (Common & { kind: "number"; integer: boolean; minimum?: number; maximum?: number })
  | (Common & { kind: "boolean" })
  | (Common & { kind: "enum"; options: string[] })
  | (Common & { kind: "const"; value: string })
  | (Common & { kind: "list"; item: FieldSpec; minItems?: number; maxItems?: number })
  | (Common & { kind: "object"; properties: PropertySpec[] })
  /** An object whose keys are chosen by the person (headers, label descriptions, subgraph output). */
  | (Common & { kind: "record"; keyPattern?: string; value: FieldSpec })
  /** Any JSON value: edited as JSON text. */
  | (Common & { kind: "json" })
  /** One of several object shapes, chosen by the value of `discriminator`. */
  | (Common & { kind: "variants"; discriminator: string; variants: { value: string; spec: ObjectSpec }[] });

export type ObjectSpec = Extract<FieldSpec, { kind: "object" }>;

export interface PropertySpec {
  name: string;
  required: boolean;
  spec: FieldSpec;
}

const isObject = (value: unknown): value is JsonSchema =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const num = (value: unknown) => (typeof value === "number" ? value : undefined);
const str = (value: unknown) => (typeof value === "string" ? value : undefined);

function common(schema: JsonSchema): Common {
  const out: Common = {};
  if (typeof schema.description === "string") out.description = schema.description;
  if ("default" in schema) out.default = schema.default;
  return out;
}

function defined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

function objectSpec(schema: JsonSchema): ObjectSpec {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties = isObject(schema.properties) ? schema.properties : {};
  return {
    ...common(schema),
    kind: "object",
    properties: Object.entries(properties).map(([name, child]) => ({
      name,
      required: required.has(name),
      spec: fieldSpec(isObject(child) ? child : {}),
    })),
  };
}

/** The form field for one JSON Schema. Anything it does not recognise is edited as JSON. */
export function fieldSpec(schema: JsonSchema): FieldSpec {
  const base = common(schema);
  if (Array.isArray(schema.oneOf)) {
    const variants = (schema.oneOf as unknown[]).filter(isObject).map(objectSpec);
    const discriminator = variants[0]?.properties.find((p) => p.spec.kind === "const")?.name;
    if (discriminator && variants.length > 1) {
      const tagged = variants.map((spec) => {
        const tag = spec.properties.find((p) => p.name === discriminator)?.spec;
        return { value: tag?.kind === "const" ? tag.value : "", spec };
      });
      if (tagged.every((v) => v.value !== "")) return { ...base, kind: "variants", discriminator, variants: tagged };
    }
    return { ...base, kind: "json" };
  }
  if (typeof schema.const === "string") return { ...base, kind: "const", value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string"))
    return { ...base, kind: "enum", options: schema.enum as string[] };
  switch (schema.type) {
    case "string":
      return defined({
        ...base,
        kind: "string",
        minLength: num(schema.minLength),
        maxLength: num(schema.maxLength),
        pattern: str(schema.pattern),
        format: str(schema.format),
      });
    case "number":
    case "integer":
      return defined({
        ...base,
        kind: "number",
        integer: schema.type === "integer",
        minimum: num(schema.minimum),
        maximum: num(schema.maximum),
      });
    case "boolean":
      return { ...base, kind: "boolean" };
    case "array":
      return defined({
        ...base,
        kind: "list",
        item: fieldSpec(isObject(schema.items) ? schema.items : {}),
        minItems: num(schema.minItems),
        maxItems: num(schema.maxItems),
      });
    case "object": {
      if (isObject(schema.properties)) return objectSpec(schema);
      const values = isObject(schema.additionalProperties) ? schema.additionalProperties : {};
      const value = fieldSpec(values);
      // A record of anything is one JSON value to the person editing it.
      if (value.kind === "json") return { ...base, kind: "json" };
      const keys = isObject(schema.propertyNames) ? str(schema.propertyNames.pattern) : undefined;
      return defined({ ...base, kind: "record", keyPattern: keys, value });
    }
    default:
      return { ...base, kind: "json" };
  }
}

/** The settings form of a node type: its data schema's properties, without the node's label
 * (renamed on its own, with `rename-node`). */
export function settingsForm(dataSchema: JsonSchema): FieldSpec {
  const spec = fieldSpec(dataSchema);
  const drop = (object: ObjectSpec): ObjectSpec => ({
    ...object,
    properties: object.properties.filter((p) => p.name !== "label"),
  });
  if (spec.kind === "object") return drop(spec);
  if (spec.kind === "variants")
    return { ...spec, variants: spec.variants.map((v) => ({ value: v.value, spec: drop(v.spec) })) };
  return spec;
}

/** The variant a value belongs to (by its discriminator), else the first. */
export function pickVariant(spec: Extract<FieldSpec, { kind: "variants" }>, value: unknown) {
  const tag = isObject(value) ? value[spec.discriminator] : undefined;
  return spec.variants.find((v) => v.value === tag) ?? (spec.variants[0] as (typeof spec.variants)[number]);
}

/** A problem with one field's value, as a locale key under editor.inspector.errors and its values. */
export interface FieldProblem {
  code:
    | "required"
    | "tooShort"
    | "tooLong"
    | "pattern"
    | "identifier"
    | "notUrl"
    | "notNumber"
    | "notInteger"
    | "tooSmall"
    | "tooLarge"
    | "tooFewItems"
    | "tooManyItems";
  params?: Record<string, number>;
}

const IDENTIFIER = "^[A-Za-z_][A-Za-z0-9_]{0,63}$";
const chars = (text: string) => [...text].length;

/** The first problem of a value against its field (undefined: no problem). `undefined` values
 * are only a problem when the field is required. */
export function fieldProblem(spec: FieldSpec, value: unknown, required: boolean): FieldProblem | undefined {
  if (value === undefined || value === "") {
    if (!required) return undefined;
    if (value === undefined || spec.kind === "string") return { code: "required" };
  }
  switch (spec.kind) {
    case "string": {
      if (typeof value !== "string") return undefined;
      // zod counts UTF-16 code units; people count characters. Both agree below the limits.
      if (spec.minLength !== undefined && chars(value) < spec.minLength)
        return { code: "tooShort", params: { min: spec.minLength } };
      if (spec.maxLength !== undefined && value.length > spec.maxLength)
        return { code: "tooLong", params: { max: spec.maxLength } };
      if (spec.pattern !== undefined && !new RegExp(spec.pattern, "u").test(value))
        return { code: spec.pattern === IDENTIFIER ? "identifier" : "pattern" };
      if (spec.format === "uri" && !URL.canParse(value)) return { code: "notUrl" };
      return undefined;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return { code: "notNumber" };
      if (spec.integer && !Number.isInteger(value)) return { code: "notInteger" };
      if (spec.minimum !== undefined && value < spec.minimum)
        return { code: "tooSmall", params: { min: spec.minimum } };
      if (spec.maximum !== undefined && value > spec.maximum)
        return { code: "tooLarge", params: { max: spec.maximum } };
      return undefined;
    }
    case "list": {
      if (!Array.isArray(value)) return undefined;
      if (spec.minItems !== undefined && value.length < spec.minItems)
        return { code: "tooFewItems", params: { min: spec.minItems } };
      if (spec.maxItems !== undefined && value.length > spec.maxItems)
        return { code: "tooManyItems", params: { max: spec.maxItems } };
      return undefined;
    }
    default:
      return undefined;
  }
}

/** A new, empty member for a list or record: the least a person must then fill in. */
export function emptyValue(spec: FieldSpec): unknown {
  if (spec.default !== undefined) return structuredClone(spec.default);
  switch (spec.kind) {
    case "string":
      return "";
    case "number":
      return spec.minimum ?? 0;
    case "boolean":
      return false;
    case "enum":
      return spec.options[0];
    case "const":
      return spec.value;
    case "list":
      return [];
    case "record":
      return {};
    case "object": {
      const out: Record<string, unknown> = {};
      for (const p of spec.properties) if (p.required) out[p.name] = emptyValue(p.spec);
      return out;
    }
    case "variants":
      return emptyValue(spec.variants[0]?.spec ?? { kind: "json" });
    default:
      return null;
  }
}
