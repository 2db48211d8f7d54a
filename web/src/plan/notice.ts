/**
 * A message for the plan screen, kept as data until it is rendered: a translation key, a text from
 * the server or the card provider, or both (the key wins when it is translated). Pure.
 */
import { isApiError } from "../api/errors.ts";

export interface Notice {
  key?: string;
  /** Server or provider wording: shown when there is no key or the key has no translation. */
  text?: string;
  values?: Record<string, string | number>;
  link?: string;
}

export type Translate = (key: string, options?: Record<string, unknown>) => string;

export const FALLBACK_KEY = "payment.unexpectedError";

export function noticeText(t: Translate, n: Notice): string {
  if (n.key) {
    const s = t(n.key, { ...n.values, defaultValue: "" });
    if (s && s !== n.key) return s;
  }
  if (n.text) return n.text;
  return t(FALLBACK_KEY);
}

/** An API error code becomes `errors.<CODE>` (falling back to its message); anything else the fallback key. */
export function noticeFromError(e: unknown, fallbackKey: string): Notice {
  if (isApiError(e)) {
    if (e.code === "UNAUTHENTICATED") return { key: "payment.noAuthenticatedUser" };
    const text = e.code === "HTTP_ERROR" ? undefined : e.message || undefined;
    return { key: `errors.${e.code}`, text, values: { status: e.status }, link: e.link };
  }
  return { key: fallbackKey };
}

export function noticeFromErrorBody(
  body: { code: string; message?: string; link?: string },
  fallbackKey: string,
): Notice {
  if (!body.code) return body.message ? { text: body.message, link: body.link } : { key: fallbackKey };
  return { key: `errors.${body.code}`, text: body.message, link: body.link };
}

/**
 * Why a renewal failed: the provider's code ("card_declined") is translated under plan.failureReasons,
 * an API code ("PAYMENT_DECLINED") under errors; otherwise the provider's sentence is shown as it is.
 */
export function reasonNotice(reason: string, code = ""): Notice {
  if (/^[a-z][a-z0-9_]*$/.test(code)) return { key: `plan.failureReasons.${code}`, text: reason || undefined };
  if (/^[A-Z][A-Z0-9_]+$/.test(code)) return { key: `errors.${code}`, text: reason || undefined };
  if (/^[A-Z][A-Z0-9_]+$/.test(reason)) return { key: `errors.${reason}`, text: reason };
  return { text: reason };
}
