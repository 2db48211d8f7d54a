/**
 * index.html with the page's own <title>, description, Open Graph and hreflang tags written in, in the
 * language of its /{lang} prefix. Share previews on Facebook, X, LINE and LinkedIn come from crawlers
 * that run no JavaScript, so these tags must be in the HTML the server sends; the web app then keeps
 * them current as the user navigates (same headTags from @kikitori/shared).
 */
import { readFileSync } from "node:fs";
import {
  escapeHtml,
  headTagsHtml,
  isSupportedLanguage,
  type Language,
  languageAlternates,
  META_PAGES,
  metaPageOf,
  RTL_LANGUAGES,
} from "@kikitori/shared";
import { fill } from "@kikitori/shared/server";

/** dist/meta.json, written by the web build (vite.config.ts). */
export type MetaTexts = Record<
  string,
  { meta: { title: string; pages: Record<string, string> }; titles: Record<string, string> }
>;

export interface PageRenderer {
  /** The HTML for a path ("/ja/summary"); the untouched index.html when the path has no language. */
  render(pathname: string): string;
}

export function createPageRenderer(opts: {
  indexHtml: string;
  texts: MetaTexts | null;
  appName: string;
  publicUrl: string;
}): PageRenderer {
  const { indexHtml, texts, appName } = opts;
  const origin = opts.publicUrl.replace(/\/$/, "");
  return {
    render(pathname) {
      const [, first = "", ...rest] = pathname.split("/");
      if (!texts || !isSupportedLanguage(first)) return indexHtml;
      const lang: Language = first;
      const t = texts[lang] ?? texts.en;
      if (!t) return indexHtml;
      const restPath = `/${rest.join("/")}`;
      const page = metaPageOf(restPath);
      const title = fill(t.meta.title, { page: t.titles[META_PAGES[page].titleKey] ?? "", appName });
      const tags = headTagsHtml({
        lang,
        title,
        description: t.meta.pages[page] ?? "",
        siteName: appName,
        url: `${origin}${pathname}`,
        alternates: languageAlternates(origin, restPath),
      });
      // A shared interview is for the link's holders only: no search engine may list it.
      const robots = page === "shared" ? '\n    <meta name="robots" content="noindex, nofollow">' : "";
      const dir = RTL_LANGUAGES.includes(lang) ? "rtl" : "ltr";
      return indexHtml
        .replace(/<html[^>]*>/, `<html lang="${lang}" dir="${dir}">`)
        .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(title)}</title>`)
        .replace("</head>", `  ${tags}${robots}\n  </head>`);
    },
  };
}

/** Reads dist/index.html and dist/meta.json (null when the build did not write it). */
export function loadPageRenderer(dist: string, appName: string, publicUrl: string): PageRenderer {
  const indexHtml = readFileSync(`${dist}/index.html`, "utf8");
  let texts: MetaTexts | null = null;
  try {
    texts = JSON.parse(readFileSync(`${dist}/meta.json`, "utf8")) as MetaTexts;
  } catch {
    texts = null;
  }
  return createPageRenderer({ indexHtml, texts, appName, publicUrl });
}
