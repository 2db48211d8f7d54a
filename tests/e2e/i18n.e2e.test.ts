/// <reference lib="dom" />
// Languages in Chromium against the real gateway (and billing, for the plan screen): every route in
// en/ja/ar/de without missing keys and with <html lang/dir>, title and meta/OG tags; the mirrored
// Arabic layout; the hidden languages ar and uk; language detection for paths without a prefix; the
// mobile menu; the share buttons.
import { readFileSync } from "node:fs";
import { jest } from "@jest/globals";
import { SUPPORTED_LANGUAGES } from "@kikitori/shared";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { NATIVE_LANGUAGE_NAMES } from "../../web/src/i18n/languages.ts";
import { freePort, type ServiceProcess, startLocalBilling, stopService } from "../infra/service-process.ts";
import { launchBrowser } from "../support/browser.ts";
import { startTestGateway, type TestGateway, tokenLinkFrom } from "../support/gateway.ts";
import { startSmtpCatcher } from "../support/smtp.ts";

const en = JSON.parse(readFileSync(new URL("../../web/src/locales/en.json", import.meta.url), "utf8"));
const ja = JSON.parse(readFileSync(new URL("../../web/src/locales/ja.json", import.meta.url), "utf8"));

jest.setTimeout(120_000);

const LANGS = ["en", "ja", "ar", "de"] as const;
type Lang = (typeof LANGS)[number];
const PASSWORD = "a long enough password";
const DESKTOP = { width: 1280, height: 800 };
const MOBILE = { width: 375, height: 812 };

let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
let t: TestGateway;
let billing: ServiceProcess | undefined;
let browser: Browser;
/** A registered, verified user, and the (now used) token of its verification link. */
let user: { email: string; usedToken: string };

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  const billingPort = await freePort();
  t = await startTestGateway({
    smtpUrl: smtp.url,
    fixedPort: true,
    env: { BILLING_URL: `http://127.0.0.1:${billingPort}` },
  });
  billing = await startLocalBilling(t.env, billingPort);
  browser = await launchBrowser();

  // Register and verify through the screens and the e-mail, as a person would.
  const ctx = await browser.newContext({ locale: "en-US" });
  const page = await ctx.newPage();
  const email = `i18n${Date.now()}@example.com`;
  await page.goto(`${t.url}/en/register`);
  await page.getByTestId("register-email").fill(email);
  await page.getByTestId("register-password").fill(PASSWORD);
  await page.getByTestId("register-submit").click();
  await page.getByTestId("register-success").waitFor();
  const { link, token } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
  await page.goto(link);
  await page.locator('[data-testid="verify-status"][data-status="success"]').waitFor();
  await ctx.close();
  user = { email, usedToken: token };
});

afterAll(async () => {
  await browser?.close();
  if (billing) await stopService(billing);
  await t?.close();
  await smtp?.close();
});

// ---------- helpers ----------

/** A page whose console warnings/errors and uncaught exceptions are recorded. */
async function openPage(ctx: BrowserContext): Promise<{ page: Page; logs: string[] }> {
  const page = await ctx.newPage();
  const logs: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "warning" || m.type() === "error") logs.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  return { page, logs };
}

async function login(page: Page, lang: string) {
  await page.goto(`${t.url}/${lang}/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/${lang}/transcription`);
}

/** Waits until the page shows its heading in `lang` (the router has switched the language). */
async function ready(page: Page, lang: string) {
  await page.waitForFunction(
    (l) => document.documentElement.lang === l && document.querySelector('[data-testid="page-title"]') !== null,
    lang,
  );
}

/** Dotted words that are not translation keys: abbreviations, domains, file names. */
const NOT_A_KEY = /^(e\.g|i\.e|etc)$|\.(com|org|net|io|app|dev|jp|html?|txt|mp3|wav|ogg|flac|aac|m4a|webm|mp4|pdf)$/i;
const KEY_LIKE = /(?<![\w@./-])[a-z][a-zA-Z0-9]*(?:\.[a-zA-Z_][a-zA-Z0-9_]*)+(?![\w@/-])/g;

/** Things in a text that look like an untranslated key ("share.title") or a left-over placeholder. */
function rawKeysIn(text: string): string[] {
  const found = [...text.matchAll(KEY_LIKE)].map((m) => m[0]).filter((w) => !NOT_A_KEY.test(w));
  const placeholders = text.match(/\{\{[^}]*\}\}/g) ?? [];
  return [...found, ...placeholders];
}

interface Head {
  title: string;
  description: string | null;
  ogTitle: string | null;
  ogDescription: string | null;
  ogUrl: string | null;
  ogLocale: string | null;
  /** How many of each of the five tags there are (each should be exactly one). */
  counts: number[];
}

const HEAD_SELECTORS = [
  'meta[name="description"]',
  'meta[property="og:title"]',
  'meta[property="og:description"]',
  'meta[property="og:url"]',
  'meta[property="og:locale"]',
];

async function readHead(page: Page): Promise<Head> {
  return page.evaluate((selectors) => {
    const content = (sel: string) => document.querySelector(sel)?.getAttribute("content") ?? null;
    return {
      title: document.title,
      description: content(selectors[0]),
      ogTitle: content(selectors[1]),
      ogDescription: content(selectors[2]),
      ogUrl: content(selectors[3]),
      ogLocale: content(selectors[4]),
      counts: selectors.map((s) => document.querySelectorAll(s).length),
    };
  }, HEAD_SELECTORS);
}

/**
 * Checks the page that is showing in `lang` and returns what is wrong with it (nothing: []), plus its
 * head tags. `logs` are the page's console lines (only those since `logFrom` count).
 */
async function inspect(
  page: Page,
  lang: Lang,
  logs: string[],
  logFrom: number,
): Promise<{ problems: string[]; head: Head }> {
  const where = new URL(page.url()).pathname;
  const problems: string[] = [];
  const add = (p: string) => problems.push(`${lang} ${where}: ${p}`);
  // The head is written in an effect after render: give it a moment to match this page.
  await page
    .waitForFunction(
      () =>
        document.querySelector('meta[property="og:url"]')?.getAttribute("content") ===
        location.origin + location.pathname,
      undefined,
      { timeout: 3000 },
    )
    .catch(() => add("og:url never matched the page URL"));
  const head = await readHead(page);
  const { htmlLang, dir, text } = await page.evaluate(() => ({
    htmlLang: document.documentElement.lang,
    dir: document.documentElement.getAttribute("dir"),
    // biome-ignore lint/performance/useDomNodeTextContent: the visible text is what matters here
    text: document.body.innerText,
  }));
  if (htmlLang !== lang) add(`<html lang="${htmlLang}">`);
  const wantDir = lang === "ar" ? "rtl" : "ltr";
  if (dir !== wantDir) add(`<html dir="${dir}">, expected ${wantDir}`);
  for (const line of logs.slice(logFrom)) if (/missing key/i.test(line)) add(line);
  for (const line of logs.slice(logFrom)) if (line.startsWith("pageerror")) add(line);
  const keys = rawKeysIn(text);
  if (keys.length) add(`raw keys or placeholders visible: ${keys.join(", ")}`);
  if (!head.title.trim()) add("empty document.title");
  const headText = [head.title, head.description, head.ogTitle, head.ogDescription].join("\n");
  const headKeys = rawKeysIn(headText);
  if (headKeys.length) add(`raw keys in the head: ${headKeys.join(", ")}`);
  HEAD_SELECTORS.forEach((sel, i) => {
    if (head.counts[i] !== 1) add(`${head.counts[i]} × ${sel}`);
  });
  for (const [name, v] of Object.entries({
    description: head.description,
    "og:title": head.ogTitle,
    "og:description": head.ogDescription,
    "og:url": head.ogUrl,
    "og:locale": head.ogLocale,
  })) {
    if (!v?.trim()) add(`${name} missing or empty`);
  }
  if (head.ogUrl !== null && head.ogUrl !== t.url + where) add(`og:url is ${head.ogUrl}, expected ${t.url + where}`);
  if (head.ogLocale !== null && !new RegExp(`^${lang}([_-][A-Z]{2})?$`).test(head.ogLocale)) {
    add(`og:locale is ${head.ogLocale}`);
  }
  return { problems, head };
}

// ---------- 1. every route in every language ----------

const PAGES = [
  { name: "transcription", path: "transcription" },
  { name: "summary", path: "summary" },
  { name: "titles", path: "title-header-generator" },
  { name: "login", path: "login" },
  { name: "register", path: "register" },
  { name: "passwordReset", path: "password-reset" },
  { name: "passwordResetConfirm", path: "password-reset/confirm?token=not-a-real-token" },
  { name: "verifyEmail", path: "verify-email?token=USED" },
  { name: "notFound", path: "no-such-page" },
] as const;
type PageName = (typeof PAGES)[number]["name"] | "upgradePlan";

/** The head of each page in each language, for the comparisons across languages and routes. */
const seen: Partial<Record<Lang, Partial<Record<PageName, Head>>>> = {};

describe("every route in en, ja, ar and de", () => {
  it("the checks themselves catch a raw key, a placeholder, a missing-key warning and a wrong dir", async () => {
    expect(rawKeysIn("Mail me at a.b@example.com about audio.mp3, e.g. today. Version 1.5.")).toEqual([]);
    expect(rawKeysIn("Title: share.title and auth.login.submit {{appName}}")).toEqual([
      "share.title",
      "auth.login.submit",
      "{{appName}}",
    ]);
    const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
    const { page, logs } = await openPage(ctx);
    await page.goto(`${t.url}/en/login`);
    await ready(page, "en");
    await page.evaluate(() => {
      const p = document.createElement("p");
      p.textContent = "nav.somethingNew";
      document.body.append(p);
      document.documentElement.dir = "rtl";
      console.warn("i18n missing key: nav.somethingNew (en)");
    });
    const { problems } = await inspect(page, "en", logs, 0);
    expect(problems.join("\n")).toMatch(/dir="rtl"/);
    expect(problems.join("\n")).toMatch(/missing key: nav\.somethingNew/);
    expect(problems.join("\n")).toMatch(/raw keys or placeholders visible: nav\.somethingNew/);
    await ctx.close();
  });

  it.each(LANGS)(
    "%s: translated, lang/dir set, a title and the meta/OG tags; the plan screen needs a login",
    async (lang) => {
      const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
      const { page, logs } = await openPage(ctx);
      const problems: string[] = [];
      const heads: Partial<Record<PageName, Head>> = {};
      seen[lang] = heads;

      for (const p of PAGES) {
        const from = logs.length;
        await page.goto(`${t.url}/${lang}/${p.path.replace("USED", encodeURIComponent(user.usedToken))}`);
        await ready(page, lang);
        // The verification answer (here: link already used, so "already verified") arrives asynchronously.
        if (p.name === "verifyEmail")
          await page.locator('[data-testid="verify-status"][data-status="already"]').waitFor();
        const r = await inspect(page, lang, logs, from);
        problems.push(...r.problems);
        heads[p.name] = r.head;
      }

      // Logged out, the plan screen sends visitors to the login screen of the same language.
      await page.goto(`${t.url}/${lang}/upgrade-plan`);
      await page.waitForURL(`${t.url}/${lang}/login`);

      await login(page, lang);
      const from = logs.length;
      await page.goto(`${t.url}/${lang}/upgrade-plan`);
      await ready(page, lang);
      await page.getByTestId("usage-minutes").waitFor();
      await page.getByTestId("plan-submit").waitFor();
      const r = await inspect(page, lang, logs, from);
      problems.push(...r.problems);
      heads.upgradePlan = r.head;

      await ctx.close();
      expect(problems).toEqual([]);
    },
  );

  it("the title and the meta/OG tags change with the language and the route", () => {
    const names: PageName[] = [...PAGES.map((p) => p.name), "upgradePlan"];
    const problems: string[] = [];
    for (const name of names) {
      // Every language (en, ja, ar and de all have their own texts) gives each field its own value.
      for (const field of ["title", "description", "ogTitle", "ogDescription", "ogUrl", "ogLocale"] as const) {
        const values = LANGS.map((l) => seen[l]?.[name]?.[field]);
        if (values.some((v) => v === undefined)) problems.push(`${name}: ${field} not seen in every language`);
        else if (new Set(values).size !== LANGS.length) {
          problems.push(`${name}: ${field} repeats across ${LANGS.join("/")}: ${values.join(" ‖ ")}`);
        }
      }
    }
    // Within a language every page has its own title and description.
    for (const lang of LANGS) {
      for (const field of ["title", "description", "ogTitle", "ogDescription", "ogUrl"] as const) {
        const values = names.map((n) => seen[lang]?.[n]?.[field]);
        const dupes = values.filter((v, i) => values.indexOf(v) !== i);
        if (dupes.length) problems.push(`${lang}: the same ${field} on several pages: ${[...new Set(dupes)]}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

it("the gateway sends each page's title, description and Open Graph tags in its language (for crawlers)", async () => {
  const head = async (path: string) => {
    const res = await fetch(`${t.url}${path}`);
    expect([path, res.status, res.headers.get("content-type")]).toEqual([path, 200, "text/html; charset=utf-8"]);
    return (await res.text()).split("</head>")[0];
  };
  const jaSummary = await head("/ja/summary");
  expect(jaSummary).toContain('<html lang="ja" dir="ltr">');
  expect(jaSummary).toContain(`<title>${ja.tools.summary.title} | Kikitori</title>`);
  expect(jaSummary).toContain(`<meta name="description" content="${ja.meta.pages.summary}" data-page-meta>`);
  expect(jaSummary).toContain(`<meta property="og:url" content="${t.url}/ja/summary" data-page-meta>`);
  expect(jaSummary).toContain('<meta property="og:locale" content="ja_JP" data-page-meta>');
  const arLogin = await head("/ar/login");
  expect(arLogin).toContain('<html lang="ar" dir="rtl">');
  expect(arLogin).toContain('<meta property="og:locale" content="ar_AR" data-page-meta>');
  expect(arLogin).not.toContain(en.meta.pages.login);
  // No language in the path: the plain page, which the app redirects.
  expect(await head("/summary")).not.toContain("data-page-meta");
});

// ---------- 2. right-to-left ----------

async function boxes(page: Page) {
  const box = async (sel: string) => {
    const b = await page.locator(sel).first().boundingBox();
    if (!b) throw new Error(`${sel} is not visible`);
    return { left: b.x, right: b.x + b.width };
  };
  return {
    brand: await box(".brand"),
    menu: await box("#site-menu"),
    firstTab: await box('[data-testid="tab-transcription"]'),
    secondTab: await box('[data-testid="tab-summary"]'),
    shareLabel: await box(".share-label"),
    shareFirst: await box('[data-testid="share-facebook"]'),
  };
}

it("ar is laid out right-to-left (brand right of the menu, tabs and share bar mirrored); ja left-to-right", async () => {
  const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await ctx.newPage();

  await page.goto(`${t.url}/ar/transcription`);
  await ready(page, "ar");
  expect(await page.evaluate(() => document.documentElement.getAttribute("dir"))).toBe("rtl");
  expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe("rtl");
  const ar = await boxes(page);
  expect(ar.brand.left).toBeGreaterThanOrEqual(ar.menu.right);
  expect(ar.firstTab.left).toBeGreaterThanOrEqual(ar.secondTab.right);
  expect(ar.shareLabel.left).toBeGreaterThanOrEqual(ar.shareFirst.right);

  await page.goto(`${t.url}/ja/transcription`);
  await ready(page, "ja");
  expect(await page.evaluate(() => document.documentElement.getAttribute("dir"))).toBe("ltr");
  const jp = await boxes(page);
  expect(jp.brand.right).toBeLessThanOrEqual(jp.menu.left);
  expect(jp.firstTab.right).toBeLessThanOrEqual(jp.secondTab.left);
  expect(jp.shareLabel.right).toBeLessThanOrEqual(jp.shareFirst.left);
  await ctx.close();
});

// ---------- 3. all 24 languages in the menu, ar and uk included ----------

const optionsOf = (page: Page) =>
  page.getByTestId("language-select").evaluate((s) => {
    const select = s as HTMLSelectElement;
    const shown = select.options[select.selectedIndex];
    return {
      /** The languages one can choose (a disabled placeholder is not a choice). */
      values: Array.from(select.options)
        .filter((o) => !o.disabled)
        .map((o) => o.value),
      all: select.options.length,
      shownLang: shown?.getAttribute("lang") ?? "",
    };
  });

it("the menu lists all 24 languages, each in its own name; /ar and /uk can be chosen and left and chosen again", async () => {
  const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await ctx.newPage();

  await page.goto(`${t.url}/en/transcription`);
  await ready(page, "en");
  const listed = await optionsOf(page);
  expect(listed.values).toEqual([...SUPPORTED_LANGUAGES]);
  expect([listed.all, listed.shownLang]).toEqual([24, "en"]);
  const names = await page
    .getByTestId("language-select")
    .evaluate((s) => Array.from((s as HTMLSelectElement).options).map((o) => [o.value, o.textContent, o.lang]));
  expect(names).toEqual(SUPPORTED_LANGUAGES.map((l) => [l, NATIVE_LANGUAGE_NAMES[l], l]));
  expect(names.find(([l]) => l === "ar")?.[1]).toBe("العربية");
  expect(names.find(([l]) => l === "uk")?.[1]).toBe("Українська");

  for (const [lang, dir] of [
    ["uk", "ltr"],
    ["ar", "rtl"],
  ] as const) {
    // Chosen from the menu, not typed into the address bar.
    await page.getByTestId("language-select").selectOption(lang);
    await page.waitForURL(`${t.url}/${lang}/transcription`);
    await ready(page, lang);
    expect(await page.evaluate(() => document.documentElement.getAttribute("dir"))).toBe(dir);
    expect(await page.getByTestId("page-title").textContent()).toBeTruthy();
    const { values, shownLang, all } = await optionsOf(page);
    expect(values).toEqual([...SUPPORTED_LANGUAGES]);
    expect([all, shownLang]).toEqual([24, lang]);
    // Away and back again.
    await page.getByTestId("language-select").selectOption("de");
    await page.waitForURL(`${t.url}/de/transcription`);
    await ready(page, "de");
    await page.getByTestId("language-select").selectOption(lang);
    await page.waitForURL(`${t.url}/${lang}/transcription`);
    await ready(page, lang);
  }
  await ctx.close();
});

// ---------- 4. detection for a path without a language prefix ----------

describe("a path without a language prefix gets the detected language", () => {
  /** A fresh browser with the given sources; opens /summary (with the query, if any). */
  async function openUnprefixed(o: { query?: string; cookie?: string; storage?: string; browserLocale: string }) {
    const ctx = await browser.newContext({
      locale: o.browserLocale,
      storageState: {
        cookies: o.cookie
          ? [
              {
                name: "i18next",
                value: o.cookie,
                domain: "127.0.0.1",
                path: "/",
                expires: -1,
                httpOnly: false,
                secure: false,
                sameSite: "Lax",
              },
            ]
          : [],
        origins: o.storage ? [{ origin: t.url, localStorage: [{ name: "i18nextLng", value: o.storage }] }] : [],
      },
    });
    const page = await ctx.newPage();
    await page.goto(`${t.url}/summary${o.query ? `?lng=${o.query}` : ""}`);
    return { ctx, page };
  }

  it.each([
    ["query string beats cookie, storage and browser", { query: "de", cookie: "fr", storage: "ja" }, "de"],
    ["cookie beats storage and browser", { cookie: "fr", storage: "ja" }, "fr"],
    ["local storage beats browser", { storage: "ja" }, "ja"],
    ["browser language (ko-KR)", {}, "ko"],
  ] as const)("%s", async (_name, sources, expected) => {
    const { ctx, page } = await openUnprefixed({ ...sources, browserLocale: "ko-KR" });
    await page.waitForURL(`${t.url}/${expected}/summary`);
    await ready(page, expected);
    // The choice is remembered for the next visit without a prefix.
    const stored = await page.evaluate(() => localStorage.getItem("i18nextLng"));
    expect(stored).toBe(expected);
    expect((await ctx.cookies()).find((c) => c.name === "i18next")?.value).toBe(expected);
    await ctx.close();
  });

  it("no supported source at all → en; an unknown prefix → en; ?lng= on a prefixed path switches it", async () => {
    const { ctx, page } = await openUnprefixed({ browserLocale: "sw-KE", cookie: "xx" });
    await page.waitForURL(`${t.url}/en/summary`);
    await page.goto(`${t.url}/xx/summary`);
    await page.waitForURL(`${t.url}/en/summary`);
    await page.goto(`${t.url}/en/login?lng=ja`);
    await page.waitForURL(`${t.url}/ja/login`);
    await ready(page, "ja");
    // …and the last language shown is what a prefix-less path gets next time.
    await page.goto(`${t.url}/register`);
    await page.waitForURL(`${t.url}/ja/register`);
    await ctx.close();
  });
});

// ---------- 5. mobile menu ----------

it.each(["en", "ar"] as const)(
  "mobile menu at 375×812 (%s): hidden, opens, a link navigates and it closes",
  async (lang) => {
    const ctx = await browser.newContext({ locale: "en-US", viewport: MOBILE, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    await page.goto(`${t.url}/${lang}/transcription`);
    await ready(page, lang);
    const toggle = page.getByTestId("menu-toggle");
    const planLink = page.locator("#site-menu .menu-link").first();

    expect(await toggle.isVisible()).toBe(true);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await planLink.isVisible()).toBe(false);
    expect(await page.getByTestId("nav-login").isVisible()).toBe(false);
    // The toggle sits at the end of the header: right in ltr, left in rtl.
    const t1 = (await toggle.boundingBox())!;
    const b1 = (await page.locator(".brand").boundingBox())!;
    if (lang === "ar") expect(t1.x + t1.width).toBeLessThanOrEqual(b1.x);
    else expect(b1.x + b1.width).toBeLessThanOrEqual(t1.x);
    // Nothing sticks out sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await planLink.waitFor({ state: "visible" });
    expect(await page.getByTestId("nav-login").isVisible()).toBe(true);
    expect(await page.getByTestId("language-select").isVisible()).toBe(true);

    // "Plan" → the plan screen, which sends a visitor on to login; the menu closes on the way.
    await planLink.click();
    await page.waitForURL(`${t.url}/${lang}/login`);
    await ready(page, lang);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await planLink.isVisible()).toBe(false);
    await ctx.close();
  },
);

// ---------- 6. share buttons ----------

const SHARE_HOSTS = /^https?:\/\/([^/]+\.)?(facebook\.com|twitter\.com|x\.com|line\.me|linkedin\.com)(\/|$)/;

/** Clicks a share button and returns the URL its popup opened. */
async function shareTarget(page: Page, testId: string): Promise<URL> {
  const [popup] = await Promise.all([page.waitForEvent("popup"), page.getByTestId(testId).click()]);
  if (popup.url() === "about:blank" || popup.url() === "") await popup.waitForURL((u) => u.href !== "about:blank");
  const url = new URL(popup.url());
  await popup.close();
  return url;
}

/** The literal parts of a translation around its {{placeholders}}. */
const literalParts = (s: string) =>
  s
    .split(/\{\{[^}]*\}\}/)
    .map((p) => p.trim())
    .filter(Boolean);

it.each(["en", "ja"] as const)(
  "share buttons open the networks' share pages with this page's URL (%s)",
  async (lang) => {
    const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
    // No internet here: the share pages are stood in for by a tiny page.
    await ctx.route(SHARE_HOSTS, (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>share</title>ok" }),
    );
    const page = await ctx.newPage();
    await page.goto(`${t.url}/${lang}/summary`);
    await ready(page, lang);
    const bar = page.getByTestId("share-bar");
    await bar.waitFor();
    for (const n of ["facebook", "x", "line", "linkedin"]) expect(await bar.getByTestId(`share-${n}`).count()).toBe(1);
    const here = `${t.url}/${lang}/summary`;
    const share = lang === "ja" ? ja.share : en.share;

    const fb = await shareTarget(page, "share-facebook");
    expect(fb.origin + fb.pathname).toBe("https://www.facebook.com/sharer/sharer.php");
    expect(fb.searchParams.get("u")).toBe(here);
    expect(fb.href).toContain(encodeURIComponent(here));

    const x = await shareTarget(page, "share-x");
    expect(x.origin + x.pathname).toBe("https://twitter.com/intent/tweet");
    expect(x.searchParams.get("url")).toBe(here);
    expect(x.href).toContain(encodeURIComponent(here));
    const text = x.searchParams.get("text") ?? "";
    for (const part of literalParts(share.title)) expect(text).toContain(part);
    expect(x.searchParams.get("hashtags")).toBe(share.hashtags.replace(/\s+/g, ""));
    if (lang === "ja") {
      expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/);
      expect(x.searchParams.get("hashtags")).toContain("文字起こし");
    }

    const line = await shareTarget(page, "share-line");
    expect(line.origin + line.pathname).toBe("https://social-plugins.line.me/lineit/share");
    expect(line.searchParams.get("url")).toBe(here);
    expect(line.href).toContain(encodeURIComponent(here));
    const lineText = line.searchParams.get("text") ?? "";
    for (const part of literalParts(share.title)) expect(lineText).toContain(part);

    const li = await shareTarget(page, "share-linkedin");
    expect(li.origin + li.pathname).toBe("https://www.linkedin.com/sharing/share-offsite/");
    expect(li.searchParams.get("url")).toBe(here);
    expect(li.href).toContain(encodeURIComponent(here));

    // The page itself stays where it was.
    expect(page.url()).toBe(here);
    await ctx.close();
  },
);
