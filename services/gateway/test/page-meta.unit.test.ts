import { describe, expect, it } from "@jest/globals";
import { createPageRenderer, type MetaTexts } from "../src/web/page-meta.ts";

const indexHtml = `<!doctype html>
<html lang="en" dir="ltr">
  <head>
    <meta charset="UTF-8" />
    <title>Kikitori</title>
  </head>
  <body><div id="root"></div></body>
</html>`;

const texts: MetaTexts = {
  en: {
    meta: { title: "{{page}} | {{appName}}", pages: { summary: "Summaries.", notFound: "No page." } },
    titles: { "tools.summary.title": "Summary", "notFound.title": "Page not found" },
  },
  ar: {
    meta: { title: "{{page}} | {{appName}}", pages: { summary: "ملخصات <سريعة>.", notFound: "لا توجد صفحة." } },
    titles: { "tools.summary.title": "الملخص", "notFound.title": "الصفحة غير موجودة" },
  },
};

const pages = createPageRenderer({ indexHtml, texts, appName: "Kikitori", publicUrl: "https://k.example/" });

describe("server-rendered page metadata", () => {
  it("writes the language, direction, title, description and Open Graph tags of the route", () => {
    const html = pages.render("/ar/summary");
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain("<title>الملخص | Kikitori</title>");
    expect(html).toContain('<meta name="description" content="ملخصات &lt;سريعة&gt;." data-page-meta>');
    expect(html).toContain('<meta property="og:url" content="https://k.example/ar/summary" data-page-meta>');
    expect(html).toContain('<meta property="og:locale" content="ar_AR" data-page-meta>');
    expect(html).toContain('<link rel="alternate" hreflang="ja" href="https://k.example/ja/summary" data-page-meta>');
    expect(html.indexOf("data-page-meta")).toBeLessThan(html.indexOf("</head>"));
  });

  it("uses the not-found texts for unknown routes and English texts for a language without a file", () => {
    expect(pages.render("/en/nowhere")).toContain("<title>Page not found | Kikitori</title>");
    const de = pages.render("/de/summary");
    expect(de).toContain('<html lang="de" dir="ltr">');
    expect(de).toContain("<title>Summary | Kikitori</title>");
  });

  it("leaves paths without a language, and a build without meta.json, untouched", () => {
    expect(pages.render("/summary")).toBe(indexHtml);
    const bare = createPageRenderer({ indexHtml, texts: null, appName: "K", publicUrl: "https://k.example" });
    expect(bare.render("/ja/summary")).toBe(indexHtml);
  });
});
