// Condition rules are data, evaluated here without any code evaluation.
import type { z } from "zod";
import { renderValue, type TemplateScope } from "../templates/template.js";
import type { ConditionOperator, conditionData } from "./node-data.schema.js";

type ConditionData = z.infer<typeof conditionData>;

function lookupPath(state: Record<string, unknown>, path: string): unknown {
  let value: unknown = state;
  for (const segment of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "object" && typeof b === "object" && a !== null && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  // "3" equals 3: values typed into a form arrive as text.
  if ((typeof a === "number" && typeof b === "string") || (typeof a === "string" && typeof b === "number")) {
    return String(a) === String(b);
  }
  return false;
}

function compare(a: unknown, b: unknown): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a.localeCompare(b);
  if (typeof a === "number" && typeof b === "string" && b.trim() !== "" && Number.isFinite(Number(b)))
    return a - Number(b);
  return null;
}

function contains(container: unknown, member: unknown): boolean {
  if (typeof container === "string") return typeof member === "string" && container.includes(member);
  if (Array.isArray(container)) return container.some((m) => equal(m, member));
  if (container !== null && typeof container === "object")
    return typeof member === "string" && Object.hasOwn(container, member);
  return false;
}

export function evaluateOperator(operator: ConditionOperator, actual: unknown, expected: unknown): boolean {
  switch (operator) {
    case "equals":
      return equal(actual, expected);
    case "not_equals":
      return !equal(actual, expected);
    case "gt":
      return (compare(actual, expected) ?? Number.NaN) > 0;
    case "gte":
      return (compare(actual, expected) ?? Number.NaN) >= 0;
    case "lt":
      return (compare(actual, expected) ?? Number.NaN) < 0;
    case "lte":
      return (compare(actual, expected) ?? Number.NaN) <= 0;
    case "contains":
      return contains(actual, expected);
    case "not_contains":
      return !contains(actual, expected);
    case "starts_with":
      return typeof actual === "string" && typeof expected === "string" && actual.startsWith(expected);
    case "ends_with":
      return typeof actual === "string" && typeof expected === "string" && actual.endsWith(expected);
    case "in":
      return contains(expected, actual);
    case "not_in":
      return !contains(expected, actual);
    case "is_empty":
      return isEmpty(actual);
    case "is_not_empty":
      return !isEmpty(actual);
    case "is_true":
      return actual === true;
    case "is_false":
      return actual === false;
  }
}

/** The label of the first rule that holds, or the default label. */
export function chooseConditionLabel(data: ConditionData, scope: TemplateScope): string {
  for (const rule of data.rules) {
    const results = rule.conditions.map((c) =>
      evaluateOperator(c.operator, lookupPath(scope.state, c.field), renderValue(c.value ?? null, scope)),
    );
    if (rule.combinator === "or" ? results.some(Boolean) : results.every(Boolean)) return rule.label;
  }
  return data.default_label;
}
