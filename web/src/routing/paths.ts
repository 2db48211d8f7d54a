/**
 * Language-prefix rules (docs/decisions/0013-languages.md), as pure functions:
 * - `/{lang}` → `/{lang}/transcription`; a known prefix decides the language;
 * - `/` and a path with no prefix (`/summary`) → the same path under the detected language (query,
 *   cookie, local storage, browser language; English when none of them names a supported language);
 * - a path with an unknown prefix (`/xx/summary`, `/pt-BR/login`) → the same path under `/en`;
 * - `?lng=<code>` on a prefixed path is an explicit switch: → the same path under that language.
 * The query string (without `lng`) and the hash are kept.
 */
import { DEFAULT_LANGUAGE, isSupportedLanguage, type Language, META_PAGES, type MetaPage } from "@kikitori/shared";
import { QUERY_PARAM, queryLanguage } from "../i18n/detect.ts";

type RoutedPage = Exclude<MetaPage, "notFound">;

/** The route segments under /{lang}: the pages of META_PAGES, which the gateway renders meta tags for too. */
export const ROUTES = Object.fromEntries(
  Object.entries(META_PAGES)
    .filter(([page]) => page !== "notFound")
    .map(([page, m]) => [page, m.route]),
) as { readonly [P in RoutedPage]: (typeof META_PAGES)[P]["route"] };

const FIRST_SEGMENTS = new Set(Object.values(ROUTES).map((r) => r.split("/")[0]));

/** Paths (after the prefix) where the three feature tabs are hidden. */
const TABLESS = new Set<string>([
  ROUTES.login,
  ROUTES.register,
  ROUTES.passwordReset,
  ROUTES.passwordResetConfirm,
  ROUTES.verifyEmail,
  ROUTES.upgradePlan,
  ROUTES.account,
]);

/** Something that looks like a language tag (en, EN, pt-BR, zh_Hant) rather than a page name. */
const LANGUAGE_LIKE = /^[a-z]{2,3}([-_][a-z0-9]{2,8})*$/i;

export type Resolution = { kind: "ok"; lang: Language; rest: string } | { kind: "redirect"; to: string };

function splitPath(pathname: string): string[] {
  return pathname.split("/").filter((s) => s.length > 0);
}

/** The query string without the `lng` switch ("" when nothing is left). */
function withoutLanguageParam(search: string): string {
  const params = new URLSearchParams(search);
  if (!params.has(QUERY_PARAM)) return search;
  params.delete(QUERY_PARAM);
  const rest = params.toString();
  return rest ? `?${rest}` : "";
}

/**
 * Decides whether a location may render or must be redirected, and where. `detected` is the language
 * detection's answer (see i18n/detect.ts), used only where the path names no language.
 */
export function resolveLocation(
  pathname: string,
  search = "",
  hash = "",
  detected: Language = DEFAULT_LANGUAGE,
): Resolution {
  const segments = splitPath(pathname);
  const clean = withoutLanguageParam(search) + hash;
  if (segments.length === 0) return { kind: "redirect", to: `/${detected}${clean}` };
  const [first, ...rest] = segments;
  if (isSupportedLanguage(first)) {
    const switchTo = queryLanguage(search);
    const lang = switchTo ?? first;
    if (rest.length === 0) return { kind: "redirect", to: `/${lang}/${ROUTES.transcription}${clean}` };
    if (switchTo) return { kind: "redirect", to: `/${lang}/${rest.join("/")}${clean}` };
    return { kind: "ok", lang, rest: `/${rest.join("/")}` };
  }
  const path = (keep: string[]) => (keep.length ? `/${keep.join("/")}` : "");
  // An unknown prefix (/xx/summary) is an explicit but unsupported language: English (the fallback).
  if (!FIRST_SEGMENTS.has(first) && LANGUAGE_LIKE.test(first)) {
    return { kind: "redirect", to: `/${DEFAULT_LANGUAGE}${path(rest)}${clean}` };
  }
  // No prefix (/summary): the detected language.
  return { kind: "redirect", to: `/${detected}${path(segments)}${clean}` };
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

/** The job page of a transcription: `/{lang}/transcriptions/{jobId}`. */
export function jobPath(lang: Language, jobId: string): string {
  return localePath(lang, ROUTES.job.replace(":jobId", encodeURIComponent(jobId)));
}

/** The public pages that carry the social share buttons: the three tools and the plans. */
const SHAREABLE = new Set<string>([ROUTES.transcription, ROUTES.summary, ROUTES.titles, ROUTES.upgradePlan]);

/**
 * Whether a path (with its /{lang}) shows the social share buttons: only the public tool and plan
 * pages. Never the user's own pages (library, job, account), a shared interview, or the sign-in screens.
 */
export function showsShareBar(pathname: string): boolean {
  return SHAREABLE.has(stripLanguage(pathname).replace(/^\/+|\/+$/g, ""));
}

/** Whether a path is a shared interview's read-only page (/{lang}/shared/{token}). */
function isSharedPath(pathname: string): boolean {
  return /^shared\/[^/]+$/.test(stripLanguage(pathname).replace(/^\/+|\/+$/g, ""));
}

/** Whether the feature tabs are shown on this path (hidden on account and plan screens). */
export function showsFeatureTabs(pathname: string): boolean {
  const rest = stripLanguage(pathname).replace(/^\/+|\/+$/g, "");
  return !TABLESS.has(rest) && !isSharedPath(pathname);
}
