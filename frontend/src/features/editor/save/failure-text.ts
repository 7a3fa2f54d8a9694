import type { TFunction } from "i18next";
import { errorMessage } from "@/lib/error-message";
import { EDITOR_ERROR_CODES } from "../document";

/** The message for a save's failure: an API error's translation, or an editor error's. */
export function failureText(t: TFunction, error: unknown): string {
  if (error && typeof error === "object" && "code" in error && !(error instanceof Error)) {
    const { code, params } = error as { code: string; params?: Record<string, unknown> };
    if ((EDITOR_ERROR_CODES as readonly string[]).includes(code)) return t(`editor.errors.${code}`, params ?? {});
  }
  return errorMessage(t, error);
}
