import type { i18n as I18n, TFunction } from "i18next";
import type { JobError } from "./progress.ts";

/**
 * The user-facing text of an upload or job error: `errors.<code>` when translated, else
 * "Server error: {status}", else the generic unexpected-error text.
 */
export function jobErrorText(t: TFunction, i18n: Pick<I18n, "exists">, error: JobError): string {
  const key = `errors.${error.code}`;
  if (i18n.exists(key)) return t(key, { status: error.status ?? "" });
  if (error.status) return t("messages.serverErrorStatus", { status: error.status });
  return t("errors.unknown");
}
