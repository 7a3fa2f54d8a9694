// The serializer of the database checkpoint saver: plain JSON text that is never revived into
// LangChain classes.
//
// LangGraph's default JsonPlusSerializer turns any `{"lc": 1, "type": "constructor", ...}` it
// reads back into a live object (langgraphjs #2346), so a user who puts that shape into a state
// field would get a class instance out of the next checkpoint. Here user data comes back exactly
// as the plain JSON it was: objects, arrays, strings, numbers, booleans, null.
//
// Only values that JSON cannot carry and that LangGraph itself hands the checkpointer are tagged
// with MARKER and revived — an explicit allow-list:
//   - `undefined` (object properties, array items, whole write values: an interrupt or resume
//     without a value, DynamicBarrierValue's `[undefined, seen]`);
//   - Uint8Array (the checkpointer contract; JsonPlusSerializer keeps bytes too);
//   - DeltaSnapshot (the full value of a DeltaChannel inside `channel_values`).
// Everything else LangGraph writes is already plain data or has a `toJSON` it reads back by
// shape: Send is stored as `{lg_name, node, args, timeout}` and rebuilt by the pregel loop from
// that shape (`_isSendInterface`), Overwrite as `{__overwrite__: value}`, interrupts, errors and
// resume values as plain objects. Other class instances are stored the way JSON.stringify would
// store them (their `toJSON()`, else their own enumerable properties) and come back plain.
//
// A user object that has the MARKER key itself is wrapped (`{MARKER: "object", value}`) so it
// round-trips unchanged instead of being read as a tag.
import { DeltaSnapshot, type SerializerProtocol } from "@langchain/langgraph-checkpoint";

export const MARKER = "__superstep_serde__";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function encode(value: unknown, ancestors: Set<object>): Json {
  if (value === undefined) return { [MARKER]: "undefined" };
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  // NaN and ±Infinity become null, as in JSON.stringify.
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") throw new TypeError("A BigInt cannot be stored in a checkpoint.");
  // Functions and symbols are dropped (object properties) or undefined, as in JSON.
  if (typeof value !== "object") return { [MARKER]: "undefined" };
  if (ancestors.has(value)) throw new TypeError("A circular value cannot be stored in a checkpoint.");
  ancestors.add(value);
  try {
    if (value instanceof Uint8Array) return { [MARKER]: "bytes", base64: Buffer.from(value).toString("base64") };
    // instanceof, not the structural isDeltaSnapshot: a user object shaped like one stays plain.
    if (value instanceof DeltaSnapshot) return { [MARKER]: "delta_snapshot", value: encode(value.value, ancestors) };
    if (Array.isArray(value)) return value.map((item) => encode(item, ancestors));
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      const replaced: unknown = toJSON.call(value);
      if (replaced !== value) return encode(replaced, ancestors);
    }
    const entries: [string, Json][] = [];
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === "function" || typeof item === "symbol") continue;
      entries.push([key, encode(item, ancestors)]);
    }
    // Object.fromEntries defines own properties, so a "__proto__" key stays an ordinary key.
    const plain = Object.fromEntries(entries) as { [key: string]: Json };
    return Object.hasOwn(plain, MARKER) ? { [MARKER]: "object", value: plain } : plain;
  } finally {
    ancestors.delete(value);
  }
}

// Deeper than this, a value takes the tagged path (which also reports a circular one).
const PLAIN_DEPTH = 64;

/**
 * Whether JSON.stringify alone writes `value` exactly as the tagged encoding would: only null,
 * booleans, numbers, strings, arrays and objects of Object's (or no) prototype, without
 * undefined, functions, the MARKER key or holes. Most checkpoint values are such; walking them
 * costs far less than building their tagged copy.
 */
function plainJson(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean") return true;
  if (type !== "object" || depth > PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainJson(item, depth + 1)) return false;
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, MARKER)) return false;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) return false;
    if (!plainJson(record[key], depth + 1)) return false;
  }
  return true;
}

function decodeEntries(object: { [key: string]: Json }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, decode(item)]));
}

function decode(value: Json): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  if (!Object.hasOwn(value, MARKER)) return decodeEntries(value);
  const tag = value[MARKER];
  switch (tag) {
    case "undefined":
      return undefined;
    case "object":
      return decodeEntries(value.value as { [key: string]: Json });
    case "bytes":
      return new Uint8Array(Buffer.from(String(value.base64), "base64"));
    case "delta_snapshot":
      return new DeltaSnapshot(decode(value.value ?? null));
    default:
      throw new Error(`Unknown serialized value tag ${JSON.stringify(tag)} in a checkpoint.`);
  }
}

/** Checkpoint serializer: JSON text (type "json"), no LangChain revival. */
export class PlainJsonSerde implements SerializerProtocol {
  /** The JSON text of a value (what the saver stores in its text columns). */
  dumps(data: unknown): string {
    return JSON.stringify(plainJson(data, 0) ? data : encode(data, new Set()));
  }

  loads(text: string): unknown {
    return decode(JSON.parse(text) as Json);
  }

  async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
    return ["json", encoder.encode(this.dumps(data))];
  }

  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== "json") throw new Error(`PlainJsonSerde reads only "json" values, not ${JSON.stringify(type)}.`);
    return this.loads(typeof data === "string" ? data : decoder.decode(data));
  }
}
