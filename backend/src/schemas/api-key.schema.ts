import { z } from "zod";

export const createApiKeyBody = z.strictObject({ name: z.string().trim().min(1).max(100) });
export type CreateApiKeyBody = z.infer<typeof createApiKeyBody>;

export const apiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the key, enough to recognise it in a list. */
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** Signs the callbacks of runs started with this key (X-Studio-Signature). */
  callback_secret: z.string().nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;

/** Returned once, at creation: the only time the full key is shown. */
export const createdApiKeyView = apiKeyView.extend({ key: z.string() });
export type CreatedApiKeyView = z.infer<typeof createdApiKeyView>;
