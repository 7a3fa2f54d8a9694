// Secrets never reach the logs: query parameters named like a credential (`?token=`, `&api_key=`,
// `client_secret=`, …) are blanked inside any logged string, and object members with such names
// are blanked whole. The walk over a logged object is bounded so that logging stays cheap.

export const REDACTED = "[redacted]";

// `?name=value` or `&name=value`. The name is bounded so that matching stays linear on long text.
const QUERY_PARAM = /([?&])([^=&#\s"'<>?]{1,100})=([^&#\s"'<>?]*)/g;
// A parameter whose name contains one of these words, case-insensitively (token, access_token,
// api_key, apikey, client_secret, password, X-Amz-Signature, …).
const SENSITIVE_NAME = /token|key|secret|password|passwd|signature|credential/i;
// Object members whose value is a credential as a whole.
const SENSITIVE_MEMBER =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|password|passwd|secret|client[-_]secret|token|access[-_]token|refresh[-_]token|id[-_]token|callback[-_]secret)$/i;

const MAX_DEPTH = 6;
const MAX_VALUES = 1000;

/** The string with the value of every credential-like query parameter replaced by [redacted]. */
export function redactString(text: string): string {
  if (!text.includes("=")) return text;
  return text.replace(QUERY_PARAM, (whole, separator: string, name: string, value: string) =>
    value !== "" && SENSITIVE_NAME.test(name) ? `${separator}${name}=${REDACTED}` : whole,
  );
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of a logged value with credentials blanked: strings as in redactString, members named
 * like a credential replaced whole. Plain objects, arrays and errors are walked, up to a fixed
 * depth and number of values; anything else (class instances such as a request) is left for the
 * logger's serializers.
 */
export function redactValue(value: unknown): unknown {
  let budget = MAX_VALUES;
  const walk = (current: unknown, depth: number): unknown => {
    if (budget <= 0 || depth > MAX_DEPTH) return current;
    if (typeof current === "string") {
      budget--;
      return redactString(current);
    }
    if (current === null || typeof current !== "object") return current;
    budget--;
    if (Array.isArray(current)) return current.map((item) => walk(item, depth + 1));
    if (current instanceof Error) return walkError(current, depth);
    if (!isPlainObject(current)) return current;
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(current)) {
      copy[key] =
        SENSITIVE_MEMBER.test(key) && member !== null && member !== undefined ? REDACTED : walk(member, depth + 1);
    }
    return copy;
  };
  // An error keeps its prototype (the logger's error serializer names its type); the copy carries
  // redacted texts, including the message and stack.
  const walkError = (error: Error, depth: number): Error => {
    const copy = Object.create(Object.getPrototypeOf(error) as object) as Record<string, unknown>;
    const source = error as unknown as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(error)) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key) as PropertyDescriptor;
      const member = source[key];
      const walked = SENSITIVE_MEMBER.test(key) && typeof member === "string" ? REDACTED : walk(member, depth + 1);
      Object.defineProperty(copy, key, {
        value: walked,
        writable: true,
        enumerable: descriptor.enumerable ?? false,
        configurable: true,
      });
    }
    return copy as unknown as Error;
  };
  try {
    return walk(value, 0);
  } catch {
    // A value that cannot be walked (a throwing getter, a revoked proxy) is not logged at all.
    return "[not logged: could not be checked for credentials]";
  }
}
