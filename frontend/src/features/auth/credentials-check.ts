// The same rules the server applies to accounts (backend schemas/auth.schema.ts), checked before
// sending so that each field says what is wrong in the person's language.
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const EMAIL_MAX = 254;
export const NAME_MAX = 100;

export type FieldErrors = Partial<Record<"name" | "email" | "password" | "confirm", string>>;

/** Translation keys of what is wrong with each field (empty when all is well). */
export function checkAccount(
  values: { name?: string; email: string; password: string; confirm?: string },
  mode: "setup" | "login",
): FieldErrors {
  const errors: FieldErrors = {};
  const email = values.email.trim();
  if (email === "") errors.email = "auth.errors.emailRequired";
  else if (email.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    errors.email = "auth.errors.emailInvalid";
  if (values.password === "") errors.password = "auth.errors.passwordRequired";
  else if (mode === "setup" && values.password.length < PASSWORD_MIN) errors.password = "auth.errors.passwordTooShort";
  else if (values.password.length > PASSWORD_MAX) errors.password = "auth.errors.passwordTooLong";
  if (mode === "setup") {
    if ((values.name ?? "").trim().length > NAME_MAX) errors.name = "auth.errors.nameTooLong";
    if (values.confirm !== values.password) errors.confirm = "auth.errors.passwordMismatch";
  }
  return errors;
}

/** Field errors from the server's VALIDATION_FAILED details ({path: "body.email", …}). */
export function serverFieldErrors(details: unknown): FieldErrors {
  const errors: FieldErrors = {};
  if (!Array.isArray(details)) return errors;
  for (const item of details as { path?: unknown }[]) {
    const path = typeof item?.path === "string" ? item.path : "";
    if (path === "body.email") errors.email = "auth.errors.emailInvalid";
    else if (path === "body.password") errors.password = "auth.errors.passwordTooShort";
    else if (path === "body.name") errors.name = "auth.errors.nameTooLong";
  }
  return errors;
}
