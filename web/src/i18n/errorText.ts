import type { TFunction } from "i18next";
import { isApiError } from "../api/errors.ts";

/** A user-facing message for any error: `errors.<CODE>` when translated, else the server's message. */
export function errorText(t: TFunction, error: unknown, fallbackKey = "errors.unknown"): string {
  if (isApiError(error)) {
    const key = `errors.${error.code}`;
    const text = t(key, { status: error.status, defaultValue: "" });
    if (text && text !== key) return text;
    if (error.message) return error.message;
  }
  return t(fallbackKey);
}
