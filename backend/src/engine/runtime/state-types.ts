// What each state field type accepts. Run inputs, node outputs and defaults are checked with it.
const TYPE_CHECKS: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  list: (v) => Array.isArray(v),
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  any: () => true,
};

export function fitsType(type: string, value: unknown): boolean {
  return (TYPE_CHECKS[type] ?? TYPE_CHECKS.any)?.(value) ?? true;
}

/** The JSON kind of a value, for messages ("a string", "a list"). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  if (typeof value === "number" && !Number.isFinite(value)) return "non-finite number";
  return typeof value;
}
