/**
 * Page metadata shared by the web app (which updates <head> as the user navigates) and the gateway
 * (which writes the same tags into index.html, so link previews on Facebook, X, LINE and LinkedIn,
 * whose crawlers run no JavaScript, show the page's own title and description in its language).
 */
import { escapeHtml } from "./html.ts";
import { type Language, SUPPORTED_LANGUAGES } from "./languages.ts";

/** Pages with their own title and description, by the route segment under /{lang}. */
export const META_PAGES = {
  transcription: { route: "transcription", titleKey: "tools.transcription.title" },
  summary: { route: "summary", titleKey: "tools.summary.title" },
  titles: { route: "title-header-generator", titleKey: "tools.titles.title" },
  login: { route: "login", titleKey: "auth.login.title" },
  register: { route: "register", titleKey: "auth.register.title" },
  passwordReset: { route: "password-reset", titleKey: "auth.reset.title" },
  passwordResetConfirm: { route: "password-reset/confirm", titleKey: "auth.resetConfirm.title" },
  verifyEmail: { route: "verify-email", titleKey: "auth.verify.title" },
  upgradePlan: { route: "upgrade-plan", titleKey: "plan.title" },
  account: { route: "account", titleKey: "account.title" },
  library: { route: "transcriptions", titleKey: "library.title" },
  job: { route: "transcriptions/:jobId", titleKey: "job.title" },
  shared: { route: "shared/:token", titleKey: "sharedPage.title" },
  notFound: { route: "", titleKey: "notFound.title" },
} as const;
export type MetaPage = keyof typeof META_PAGES;

/** Whether a route ("transcriptions/:jobId") matches a path without its /{lang} ("transcriptions/3f…"). */
function routeMatches(route: string, path: string): boolean {
  const a = route.split("/");
  const b = path.split("/");
  return a.length === b.length && a.every((seg, i) => (seg.startsWith(":") ? b[i].length > 0 : seg === b[i]));
}

/** The page of a path below /{lang} ("/summary" → summary); unknown paths are notFound. */
export function metaPageOf(rest: string): MetaPage {
  const path = rest.replace(/^\/+|\/+$/g, "");
  for (const [page, m] of Object.entries(META_PAGES))
    if (m.route && routeMatches(m.route, path)) return page as MetaPage;
  return "notFound";
}

/** Absolute URL of a page in a language ("https://k.example/ja/upgrade-plan"), with an optional query. */
export function pageUrl(publicUrl: string, lang: Language, page: Exclude<MetaPage, "notFound">, query = ""): string {
  return `${publicUrl.replace(/\/$/, "")}/${lang}/${META_PAGES[page].route}${query}`;
}

/** Open Graph locale per language (the region most readers of that language are in). */
export const OG_LOCALES: Record<Language, string> = {
  en: "en_US",
  ja: "ja_JP",
  zh: "zh_CN",
  de: "de_DE",
  fr: "fr_FR",
  it: "it_IT",
  th: "th_TH",
  nl: "nl_NL",
  id: "id_ID",
  el: "el_GR",
  ko: "ko_KR",
  hi: "hi_IN",
  sv: "sv_SE",
  pl: "pl_PL",
  es: "es_ES",
  ru: "ru_RU",
  pt: "pt_BR",
  tr: "tr_TR",
  vi: "vi_VN",
  ta: "ta_IN",
  fa: "fa_IR",
  tl: "tl_PH",
  ar: "ar_AR",
  uk: "uk_UA",
};

export interface PageMeta {
  lang: Language;
  /** Full document title ("Summary | Kikitori"). */
  title: string;
  description: string;
  siteName: string;
  /** Absolute URL of the page in this language. */
  url: string;
  /** The same page in every language, for hreflang links; `x-default` points at English. */
  alternates: { hreflang: string; href: string }[];
}

export interface HeadTag {
  tag: "meta" | "link";
  attrs: Record<string, string>;
}

/** The same path under every language prefix. */
export function languageAlternates(origin: string, rest: string): PageMeta["alternates"] {
  const path = rest === "/" ? "" : rest;
  const list = SUPPORTED_LANGUAGES.map((l) => ({ hreflang: l, href: `${origin}/${l}${path}` }));
  return [...list, { hreflang: "x-default", href: `${origin}/en${path}` }];
}

/** Every tag of <head> that depends on language and page, in a fixed order. */
export function headTags(m: PageMeta): HeadTag[] {
  const meta = (key: "name" | "property", name: string, content: string): HeadTag => ({
    tag: "meta",
    attrs: { [key]: name, content },
  });
  return [
    meta("name", "description", m.description),
    meta("property", "og:type", "website"),
    meta("property", "og:site_name", m.siteName),
    meta("property", "og:title", m.title),
    meta("property", "og:description", m.description),
    meta("property", "og:url", m.url),
    meta("property", "og:locale", OG_LOCALES[m.lang]),
    meta("name", "twitter:card", "summary"),
    meta("name", "twitter:title", m.title),
    meta("name", "twitter:description", m.description),
    { tag: "link", attrs: { rel: "canonical", href: m.url } },
    ...m.alternates.map(
      (a): HeadTag => ({ tag: "link", attrs: { rel: "alternate", hreflang: a.hreflang, href: a.href } }),
    ),
  ];
}

/** The tags as HTML, each marked data-page-meta so the web app can replace them on navigation. */
export function headTagsHtml(m: PageMeta): string {
  return headTags(m)
    .map((t) => {
      const attrs = Object.entries(t.attrs)
        .map(([k, v]) => `${k}="${escapeHtml(v)}"`)
        .join(" ");
      return `<${t.tag} ${attrs} data-page-meta>`;
    })
    .join("\n    ");
}
