import { headTags, languageAlternates, META_PAGES, type MetaPage } from "@kikitori/shared";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { useAppConfig } from "../config/appConfig.ts";
import { stripLanguage } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/**
 * Keeps <head> in step with the page and language: document.title ("<page> | <app name>"), the meta
 * description, Open Graph and Twitter card tags, the canonical link and one hreflang link per language.
 * The gateway writes the same tags (shared headTags) into index.html for crawlers that run no script.
 */
export function usePageMeta(page: MetaPage): void {
  const { t } = useTranslation();
  const { appName } = useAppConfig();
  const lang = useLang();
  const { pathname } = useLocation();
  useEffect(() => {
    const title = t("meta.title", { page: t(META_PAGES[page].titleKey), appName });
    const origin = window.location.origin;
    document.title = title;
    for (const el of document.head.querySelectorAll("[data-page-meta]")) el.remove();
    const tags = headTags({
      lang,
      title,
      description: t(`meta.pages.${page}`),
      siteName: appName,
      url: origin + pathname,
      alternates: languageAlternates(origin, stripLanguage(pathname)),
    });
    for (const { tag, attrs } of tags) {
      const el = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      el.setAttribute("data-page-meta", "");
      document.head.appendChild(el);
    }
  }, [page, appName, lang, pathname, t]);
}
