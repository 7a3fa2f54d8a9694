import type { TFunction } from "i18next";
import type { EventError } from "./run-types";

/** A run's or node's error as a person reads it: the translation of its code (the server's text as the fallback). */
export function runErrorText(t: TFunction, error: EventError): string {
  return t(`errors.${error.code}`, {
    defaultValue: error.message || t("common.unknownErrorCode", { code: error.code }),
  });
}
