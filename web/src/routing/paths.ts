/**
 * Language-prefix rules of spec section 2, as pure functions:
 * `/` → `/en`; `/{lang}` → `/{lang}/transcription`; a path with an unknown or missing language prefix
 * → the same path under `/en` (query string and hash kept).
 */
import { DEFAULT_LANGUAGE, isSupportedLanguage, type Language } from "@kikitori/shared";

/** The route segments under /{lang}. */
export const ROUTES = {
  transcription: "transcription",
  summary: "summary",
  titles: "title-header-generator",
  login: "login",
  register: "register",
  passwordReset: "password-reset",
  passwordResetConfirm: "password-reset/confirm",
  verifyEmail: "verify-email",
  upgradePlan: "upgrade-plan",
} as const;

const FIRST_SEGMENTS = new Set(Object.values(ROUTES).map((r) => r.split("/")[0]));

/** Paths (after the prefix) where the three feature tabs are hidden. */
const TABLESS = new Set<string>([
  ROUTES.login,
  ROUTES.register,
  ROUTES.passwordReset,
  ROUTES.passwordResetConfirm,
  ROUTES.verifyEmail,
  ROUTES.upgradePlan,
]);

/** Something that looks like a language tag (en, EN, pt-BR, zh_Hant) rather than a page name. */
const LANGUAGE_LIKE = /^[a-z]{2,3}([-_][a-z0-9]{2,8})*$/i;

export type Resolution = { kind: "ok"; lang: Language; rest: string } | { kind: "redirect"; to: string };

function splitPath(pathname: string): string[] {
  return pathname.split("/").filter((s) => s.length > 0);
}

/** Decides whether a location may render or must be redirected, and where. */
export function resolveLocation(pathname: string, search = "", hash = ""): Resolution {
  const suffix = search + hash;
  const segments = splitPath(pathname);
  if (segments.length === 0) return { kind: "redirect", to: `/${DEFAULT_LANGUAGE}${suffix}` };
  const [first, ...rest] = segments;
  if (isSupportedLanguage(first)) {
    if (rest.length === 0) return { kind: "redirect", to: `/${first}/${ROUTES.transcription}${suffix}` };
    return { kind: "ok", lang: first, rest: `/${rest.join("/")}` };
  }
  // Unknown prefix (/xx/summary) is replaced; a missing one (/summary) is added.
  const keep = !FIRST_SEGMENTS.has(first) && LANGUAGE_LIKE.test(first) ? rest : segments;
  const path = keep.length ? `/${keep.join("/")}` : "";
  return { kind: "redirect", to: `/${DEFAULT_LANGUAGE}${path}${suffix}` };
}

/** The path without its /{lang} prefix ("/summary"), or "/" when there is none. */
export function stripLanguage(pathname: string): string {
  const segments = splitPath(pathname);
  if (segments.length && isSupportedLanguage(segments[0])) segments.shift();
  return `/${segments.join("/")}`;
}

/** The same location under another language prefix. */
export function switchLanguagePath(pathname: string, lang: Language, search = "", hash = ""): string {
  const rest = stripLanguage(pathname);
  return `/${lang}${rest === "/" ? "" : rest}${search}${hash}`;
}

/** `/{lang}/{route}` */
export function localePath(lang: Language, route: string): string {
  return `/${lang}/${route.replace(/^\/+/, "")}`;
}

/** Whether the feature tabs are shown on this path (hidden on account and plan screens). */
export function showsFeatureTabs(pathname: string): boolean {
  const rest = stripLanguage(pathname).replace(/^\/+|\/+$/g, "");
  return !TABLESS.has(rest);
}
