// Structured answers (an LLM node's `json_schema`, a Decision's label) are checked with Ajv against
// JSON Schema 2020-12. The schema comes from the workflow's author, so it is untrusted input:
// - it is refused when a workflow is validated unless it is valid JSON Schema describing an
//   object, small (the MAX_ANSWER_SCHEMA_* limits bound the time compiling it takes) and free of
//   unknown keywords;
// - `pattern` and `patternProperties` are refused in every part of the schema that checks answers
//   (a `$defs` entry nothing refers to is never compiled, so never run): they would run the
//   author's regular expressions on the server against a model's answer (ReDoS). `format` is
//   checked by linear-time code (answer-formats.ts) for the formats listed there, and refused for
//   any other;
// - `$ref` resolves inside the schema only (nothing is fetched), each schema is compiled in an
//   Ajv instance of its own (an `$id` cannot reach another workflow's schema), and `$async` is
//   refused (the check is synchronous).
// Compiled checks are kept per schema text, a bounded number of them.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { ANSWER_FORMATS } from "./answer-formats.js";

/** The longest schema accepted, as JSON text. */
export const MAX_ANSWER_SCHEMA_BYTES = 64 * 1024;
/** The deepest nesting of objects and arrays accepted in a schema. */
export const MAX_ANSWER_SCHEMA_DEPTH = 32;
/**
 * The most objects and arrays a schema may hold. Compiling costs time on the server's only
 * thread in proportion to them (bench/answer-schema.mjs measures it at this limit).
 */
export const MAX_ANSWER_SCHEMA_NODES = 500;
/**
 * The most objects and arrays the schemas checked by one validation may hold together (the
 * workflow's and its subgraphs'), so that one document full of schemas cannot cost seconds.
 */
export const MAX_ANSWER_SCHEMA_NODES_PER_VALIDATION = 4_000;
/** Problems listed for one answer before the rest are only counted. */
export const MAX_ANSWER_PROBLEMS = 20;
/** Compiled schemas kept (least recently used ones are dropped first). */
const CACHE_SIZE = 256;

const REFUSED_KEYWORDS = ["pattern", "patternProperties"] as const;

const OPTIONS = {
  allErrors: true,
  strict: true,
  // Ajv's stricter rules on types and tuples would refuse schemas the providers accept.
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  logger: false,
  // Each referenced schema is compiled once and called, never copied into every place that uses
  // it, so the generated code stays linear in the schema; the optimiser's passes would triple the
  // compile time for checks that run on small answers.
  inlineRefs: false,
  code: { optimize: false },
} as const;

/** Checks schemas against the 2020-12 meta-schema (compiled once, on first use). */
let metaChecker: Ajv2020 | null = null;
const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
function checkAgainstMetaSchema(schema: Record<string, unknown>): string | null {
  if (schema.$schema !== undefined && String(schema.$schema).replace(/#$/, "") !== DRAFT_2020_12)
    return `names "$schema": ${JSON.stringify(schema.$schema)}; only JSON Schema 2020-12 is read here (${DRAFT_2020_12}, or leave "$schema" out)`;
  metaChecker ??= new Ajv2020({ ...OPTIONS, validateFormats: false });
  let ok: boolean;
  try {
    ok = metaChecker.validateSchema(schema) as boolean;
  } catch (error) {
    return `is not valid JSON Schema (2020-12): ${(error as Error).message}`;
  }
  if (ok) return null;
  const first = metaChecker.errors?.[0];
  const where = first?.instancePath ? ` at ${first.instancePath}` : "";
  return `is not valid JSON Schema (2020-12)${where}: ${first?.message ?? "unknown problem"}`;
}

class RefusedSchema extends Error {}

/** The JSON Pointer of `target` (found by identity) inside `root`, or null. */
function pointerTo(root: unknown, target: unknown): string | null {
  const stack: [unknown, string][] = [[root, ""]];
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, string];
    if (item === target) return path;
    if (item === null || typeof item !== "object") continue;
    for (const [key, child] of Object.entries(item))
      stack.push([child, `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
  }
  return null;
}

/** A fresh Ajv for one schema: nothing it registers is seen by another schema. */
function compilerFor(): Ajv2020 {
  const ajv = new Ajv2020({
    ...OPTIONS,
    meta: false,
    validateSchema: false,
    addUsedSchema: false,
    formats: ANSWER_FORMATS,
  });
  for (const keyword of REFUSED_KEYWORDS) {
    ajv.removeKeyword(keyword);
    ajv.addKeyword({
      keyword,
      compile(_value, _parent, it) {
        // A schema reached by $ref is compiled on its own, its paths starting again at "#".
        const env = it.schemaEnv;
        const base = env.root === env ? "" : (pointerTo(env.root.schema, env.schema) ?? "");
        const where = `${base}${it.errSchemaPath.slice(1)}`;
        const at = where === "" ? "" : ` at ${where}`;
        throw new RefusedSchema(
          `uses "${keyword}"${at}, which is not accepted: a regular expression from a workflow could stall the server; describe the expected text in "description" instead`,
        );
      },
    });
  }
  return ajv;
}

/** Objects and arrays in a JSON value, counted without recursion up to `stopAt`, and its depth. */
function measure(value: unknown, stopAt: number): { nodes: number; depth: number } {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  let deepest = 0;
  while (stack.length > 0 && nodes < stopAt && deepest <= MAX_ANSWER_SCHEMA_DEPTH) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    nodes++;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return { nodes, depth: deepest };
}

/**
 * What compiling a schema costs, in objects and arrays; 0 for one refused before compiling
 * (too many of them, too deep, or not an object).
 */
export function answerSchemaCost(schema: unknown): number {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return 0;
  const { nodes, depth } = measure(schema, MAX_ANSWER_SCHEMA_NODES + 1);
  return nodes > MAX_ANSWER_SCHEMA_NODES || depth > MAX_ANSWER_SCHEMA_DEPTH ? 0 : nodes;
}

/** What is too big about a JSON value's objects and arrays; or null. */
function sizeProblem(value: unknown): string | null {
  const { nodes, depth } = measure(value, MAX_ANSWER_SCHEMA_NODES + 1);
  if (depth > MAX_ANSWER_SCHEMA_DEPTH)
    return `nests objects and arrays more than ${MAX_ANSWER_SCHEMA_DEPTH} levels deep`;
  if (nodes > MAX_ANSWER_SCHEMA_NODES)
    return `holds more than ${MAX_ANSWER_SCHEMA_NODES} objects and arrays; split the answer over several nodes`;
  return null;
}

type Compiled = { validate: ValidateFunction } | { problem: string };

const cache = new Map<string, Compiled>();

function compile(schema: Record<string, unknown>, text: string): Compiled {
  if (text.length > MAX_ANSWER_SCHEMA_BYTES)
    return { problem: `is larger than ${MAX_ANSWER_SCHEMA_BYTES / 1024} KiB (${text.length} characters)` };
  const size = sizeProblem(schema);
  if (size) return { problem: size };
  const meta = checkAgainstMetaSchema(schema);
  if (meta) return { problem: meta };
  if (schema.type !== "object")
    return { problem: 'must describe an object ("type": "object"): the answer is given as named fields' };
  const async = { problem: 'uses "$async", which is not accepted: answers are checked synchronously' };
  if ("$async" in schema) return async;
  try {
    const validate = compilerFor().compile(schema);
    return (validate as { $async?: boolean }).$async ? async : { validate };
  } catch (error) {
    if (error instanceof RefusedSchema) return { problem: error.message };
    const message = (error as Error).message;
    const format = /^unknown format "([^"]*)"/.exec(message);
    if (format)
      return {
        problem: `uses the format "${format[1]}", which is not checked here; use one of ${Object.keys(ANSWER_FORMATS).join(", ")}, or describe it in "description"`,
      };
    return { problem: `cannot be used: ${message.replace(/^strict mode: /, "")}` };
  }
}

// The same schema object (a node's data, a Decision's schema) is asked for at every call: known
// objects skip even the JSON text of the key.
const byObject = new WeakMap<object, Compiled>();

function compiled(schema: Record<string, unknown>): Compiled {
  const known = byObject.get(schema);
  if (known) return known;
  const made = compiledByText(schema);
  byObject.set(schema, made);
  return made;
}

function compiledByText(schema: Record<string, unknown>): Compiled {
  const text = JSON.stringify(schema);
  const found = cache.get(text);
  if (found) {
    // Most recently used last: a Map keeps insertion order.
    cache.delete(text);
    cache.set(text, found);
    return found;
  }
  const made = compile(schema, text);
  cache.set(text, made);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return made;
}

/** Why a schema cannot check structured answers, or null when it can. */
export function answerSchemaProblem(schema: Record<string, unknown>): string | null {
  const result = compiled(schema);
  return "problem" in result ? result.problem : null;
}

/** How many schemas are compiled and kept (for tests). */
export function compiledAnswerSchemas(): number {
  return cache.size;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function pointerKeys(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const key of pointerKeys(pointer))
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** `$.items[2].name` for the JSON Pointer `/items/2/name` into `root`. */
function readablePath(root: unknown, pointer: string): string {
  let path = "$";
  let value: unknown = root;
  for (const key of pointerKeys(pointer)) {
    path = Array.isArray(value) ? `${path}[${key}]` : member(path, key);
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

function member(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function describe(error: ErrorObject, root: unknown): string {
  const path = readablePath(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${member(path, String(params.missingProperty))} is missing`;
    case "type": {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(",");
      return `${path} should be ${types.join(" or ")}, not ${typeName(valueAt(root, error.instancePath))}`;
    }
    case "enum":
      return `${path} should be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${path} should be ${JSON.stringify(params.allowedValue)}`;
    case "additionalProperties":
      return `${member(path, String(params.additionalProperty))} is not allowed`;
    case "unevaluatedProperties":
      return `${member(path, String(params.unevaluatedProperty))} is not allowed`;
    default:
      return `${path} ${(error.message ?? "does not match the schema").replace(/^must\b/, "should")}`;
  }
}

/**
 * Problems with an answer, as readable strings; empty when it matches. The schema must be one
 * `answerSchemaProblem` accepts (the validator makes sure of it): otherwise this throws.
 */
export function checkAnswer(value: unknown, schema: Record<string, unknown>): string[] {
  const result = compiled(schema);
  if ("problem" in result) throw new Error(`json_schema ${result.problem}`);
  if (result.validate(value)) return [];
  const errors = result.validate.errors ?? [];
  const problems = errors.slice(0, MAX_ANSWER_PROBLEMS).map((error) => describe(error, value));
  if (errors.length > MAX_ANSWER_PROBLEMS) problems.push(`and ${errors.length - MAX_ANSWER_PROBLEMS} more problems`);
  return problems;
}
