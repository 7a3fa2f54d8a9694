import type { TFunction } from "i18next";
import type { EventError } from "./run-types";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The names an error's details list (IMPORTED_ENV_MISSING: the variables not set), joined for a message. */
function detailNames(details: unknown): string | undefined {
  if (!isRecord(details) || !Array.isArray(details.names)) return undefined;
  const names = details.names.filter((name): name is string => typeof name === "string");
  return names.length > 0 ? names.join(", ") : undefined;
}

/** A run's or node's error as a person reads it: the translation of its code (the server's text as the fallback). */
export function runErrorText(t: TFunction, error: EventError): string {
  const names = detailNames(error.details);
  return t(`errors.${error.code}`, {
    defaultValue: error.message || t("common.unknownErrorCode", { code: error.code }),
    ...(names !== undefined ? { names } : {}),
  });
}

/**
 * What the server's details add to the translated message: its `reason` (the sandbox's or the
 * graph's own words, in English, shown as they are in every language).
 */
export function runErrorDetails(error: EventError): string[] {
  if (!isRecord(error.details)) return [];
  const reason = error.details.reason;
  return typeof reason === "string" && reason.trim() !== "" ? [reason] : [];
}
