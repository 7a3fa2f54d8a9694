import { z } from "zod";

export const paginationQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type PaginationQuery = z.infer<typeof paginationQuery>;

export const pagination = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  next_offset: z.number().int().nullable(),
});

export const errorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown() }),
});

export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

export function pageEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination });
}
