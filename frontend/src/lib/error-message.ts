import type { TFunction } from "i18next";
import { ApiError } from "./api";

/** A failed dynamic import (a code-split page that could not be loaded): the server is away or was updated. */
export function isChunkLoadError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(error.message)
  );
}

/** The code an error is shown by: the API's error.code, NETWORK for a page that could not load. */
export function errorCode(error: unknown): string | null {
  if (error instanceof ApiError) return error.code;
  if (isChunkLoadError(error)) return "NETWORK";
  return null;
}

/** The message a person reads for an error: the translation of its code, never a raw exception. */
export function errorMessage(t: TFunction, error: unknown): string {
  const code = errorCode(error);
  if (code === null) return t("common.unexpectedError");
  return t(`errors.${code}`, { defaultValue: t("common.unknownErrorCode", { code }) });
}
