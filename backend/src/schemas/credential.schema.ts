// Stored credentials: a user's own keys for model providers, HTTP services and SMTP servers,
// referenced from nodes by id. The secret part is written once and never read back by the API.
import { z } from "zod";

export const CREDENTIAL_TYPES = ["openai", "anthropic", "http_bearer", "http_basic", "http_header", "smtp"] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

// Shorter secrets would match ordinary words when runs are scrubbed of them.
const secret = z.string().min(4, { message: "must be at least 4 characters" }).max(8000);
const headerName = z.string().regex(/^[A-Za-z0-9-]{1,100}$/, { message: "must be an HTTP header name" });
const hostName = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]_-]+$/, { message: "must be a host name or address" });

export const credentialData = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("openai"), data: z.strictObject({ api_key: secret }) }),
  z.strictObject({ type: z.literal("anthropic"), data: z.strictObject({ api_key: secret }) }),
  z.strictObject({ type: z.literal("http_bearer"), data: z.strictObject({ token: secret }) }),
  z.strictObject({
    type: z.literal("http_basic"),
    data: z.strictObject({ username: z.string().min(1).max(500), password: secret }),
  }),
  z.strictObject({ type: z.literal("http_header"), data: z.strictObject({ name: headerName, value: secret }) }),
  z.strictObject({
    type: z.literal("smtp"),
    data: z.strictObject({
      host: hostName,
      port: z.number().int().min(1).max(65535).default(587),
      /** true: TLS from the first byte (port 465); false: STARTTLS when the server offers it. */
      secure: z.boolean().default(false),
      username: z.string().min(1).max(500).optional(),
      password: secret.optional(),
    }),
  }),
]);
export type CredentialData = z.infer<typeof credentialData>;

/** A decrypted credential as a run uses it. */
export type StoredCredential = CredentialData & { id: string; name: string };

/** The fields of each type whose values are secret (scrubbed from runs, never shown). */
export const SECRET_FIELDS: Record<CredentialType, readonly string[]> = {
  openai: ["api_key"],
  anthropic: ["api_key"],
  http_bearer: ["token"],
  http_basic: ["password"],
  http_header: ["value"],
  smtp: ["password"],
};

const name = z.string().trim().min(1).max(100);

// `data` is checked against its type's shape by the service, which reports paths under body.data.
export const createCredentialBody = z.strictObject({
  name,
  type: z.enum(CREDENTIAL_TYPES),
  data: z.record(z.string(), z.unknown()),
});
export type CreateCredentialBody = z.infer<typeof createCredentialBody>;

/** Rename, or replace the secret (the whole `data` of the same type). */
export const updateCredentialBody = z
  .strictObject({ name: name.optional(), data: z.record(z.string(), z.unknown()).optional() })
  .refine((body) => body.name !== undefined || body.data !== undefined, { message: "give a name or data" });
export type UpdateCredentialBody = z.infer<typeof updateCredentialBody>;

export const credentialView = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(CREDENTIAL_TYPES),
  /** Which fields are set, never their values. */
  fields: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type CredentialView = z.infer<typeof credentialView>;
