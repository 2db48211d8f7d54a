import { describe, expect, it } from "@jest/globals";
import { SUPPORTED_LANGUAGES } from "../src/languages.ts";
import { headTags, headTagsHtml, languageAlternates, metaPageOf, OG_LOCALES } from "../src/meta.ts";

describe("page metadata", () => {
  const meta = {
    lang: "ja" as const,
    title: "要約 | Kikitori",
    description: 'A "quoted" <description> & more',
    siteName: "Kikitori",
    url: "https://k.example/ja/summary",
    alternates: languageAlternates("https://k.example", "/summary"),
  };

  it("maps paths below /{lang} to pages", () => {
    expect(metaPageOf("/summary")).toBe("summary");
    expect(metaPageOf("/title-header-generator/")).toBe("titles");
    expect(metaPageOf("/password-reset/confirm")).toBe("passwordResetConfirm");
    expect(metaPageOf("/nope")).toBe("notFound");
    expect(metaPageOf("/transcriptions")).toBe("library");
    expect(metaPageOf("/transcriptions/3f2c1a9e-0000-4000-8000-000000000000")).toBe("job");
    expect(metaPageOf("/transcriptions/a/b")).toBe("notFound");
    expect(metaPageOf("/")).toBe("notFound");
  });

  it("links the page in all 24 languages plus x-default", () => {
    const alt = languageAlternates("https://k.example", "/summary");
    expect(alt).toHaveLength(25);
    expect(alt.find((a) => a.hreflang === "ar")?.href).toBe("https://k.example/ar/summary");
    expect(alt.at(-1)).toEqual({ hreflang: "x-default", href: "https://k.example/en/summary" });
  });

  it("has an Open Graph locale for every language", () => {
    for (const l of SUPPORTED_LANGUAGES) expect(OG_LOCALES[l]).toMatch(/^[a-z]{2}_[A-Z]{2}$/);
  });

  it("writes description, Open Graph, Twitter, canonical and hreflang tags", () => {
    const tags = headTags(meta);
    const content = (attr: string, name: string) => tags.find((t) => t.attrs[attr] === name)?.attrs.content;
    expect(content("name", "description")).toBe(meta.description);
    expect(content("property", "og:title")).toBe(meta.title);
    expect(content("property", "og:url")).toBe(meta.url);
    expect(content("property", "og:locale")).toBe("ja_JP");
    expect(content("name", "twitter:card")).toBe("summary");
    expect(tags.filter((t) => t.attrs.rel === "alternate")).toHaveLength(25);
    expect(tags.find((t) => t.attrs.rel === "canonical")?.attrs.href).toBe(meta.url);
  });

  it("escapes attribute values in HTML", () => {
    const html = headTagsHtml(meta);
    expect(html).toContain('content="A &quot;quoted&quot; &lt;description&gt; &amp; more"');
    expect(html).not.toContain("<description>");
    expect(html.match(/data-page-meta/g)).toHaveLength(headTags(meta).length);
  });
});
