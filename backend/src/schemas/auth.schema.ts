import { z } from "zod";

const email = z
  .email({ message: "must be an email address" })
  .max(254)
  .transform((value) => value.trim().toLowerCase());
const password = z.string().min(8, { message: "must be at least 8 characters" }).max(256);

export const credentialsBody = z.strictObject({ email, password });
export type CredentialsBody = z.infer<typeof credentialsBody>;

export const registerBody = z.strictObject({
  email,
  password,
  name: z.string().trim().min(1).max(100).optional(),
});
export type RegisterBody = z.infer<typeof registerBody>;

export const userView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(["owner", "member"]),
  created_at: z.string(),
});
export type UserView = z.infer<typeof userView>;

export const sessionView = z.object({ token: z.string(), user: userView });
export type SessionView = z.infer<typeof sessionView>;
