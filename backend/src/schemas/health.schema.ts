import { z } from "zod";

export const healthView = z.object({
  status: z.literal("ok"),
  version: z.string(),
  db: z.enum(["sqlite", "postgres"]),
  queue: z.enum(["memory", "redis"]),
  import_enabled: z.boolean(),
});
export type HealthView = z.infer<typeof healthView>;
