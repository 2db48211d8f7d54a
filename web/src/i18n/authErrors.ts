import type { TFunction } from "i18next";
import { isApiError } from "../api/errors.ts";
import { errorText } from "./errorText.ts";

/** Codes whose own message says more than a screen's generic failure text. */
const ALWAYS_SPECIFIC = new Set(["RATE_LIMITED", "NETWORK_ERROR", "TIMEOUT", "SERVICE_UNAVAILABLE"]);

/**
 * The message for a failed account call: the code's own text for `specific` codes (and connectivity or
 * rate-limit problems), the screen's generic failure text otherwise.
 */
export function authErrorText(t: TFunction, error: unknown, fallbackKey: string, specific: string[] = []): string {
  if (isApiError(error) && (ALWAYS_SPECIFIC.has(error.code) || specific.includes(error.code))) {
    return errorText(t, error, fallbackKey);
  }
  return t(fallbackKey);
}
