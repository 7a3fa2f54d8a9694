// Scrubs the secrets of a run's credentials from everything the run writes: node outputs (so the
// state and checkpoints), events, errors and the run's ending. A service that echoes a header
// back, or a provider that quotes the key in an error, leaves "[redacted]" in their place.
import { REDACTED } from "../../core/log-redaction.js";
import { SECRET_FIELDS, type StoredCredential } from "../../schemas/credential.schema.js";

// Secrets shorter than this are refused when a credential is stored (they would match words).
const MIN_SECRET_LENGTH = 4;

/** The strings a credential's secret can appear as in a response or an error. */
export function secretsOf(credential: StoredCredential): string[] {
  const data = credential.data as Record<string, unknown>;
  const values = SECRET_FIELDS[credential.type]
    .map((field) => data[field])
    .filter((value): value is string => typeof value === "string");
  if (credential.type === "http_basic") {
    values.push(Buffer.from(`${credential.data.username}:${credential.data.password}`).toString("base64"));
  }
  // As it appears inside JSON text (quotes and backslashes escaped).
  return values.flatMap((value) => [value, JSON.stringify(value).slice(1, -1)]);
}

export class SecretRedactor {
  readonly #secrets: string[];

  constructor(secrets: Iterable<string> = []) {
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...new Set(secrets)]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  get active(): boolean {
    return this.#secrets.length > 0;
  }

  text(value: string): string {
    let result = value;
    for (const secret of this.#secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  }

  /** A copy of a JSON-like value with every secret replaced in its strings. */
  value<T>(value: T): T {
    if (!this.active) return value;
    return this.#walk(value) as T;
  }

  #walk(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.#walk(item));
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) copy[key] = this.#walk(item);
      return copy;
    }
    return value;
  }
}
