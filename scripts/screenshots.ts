/// <reference lib="dom" />
// `npm run screenshots [lang…]`: full-page PNGs of every screen in en, ja and ar (or the languages
// given), at desktop (1280×800) and phone (375×812) width, plus the phone menu opened, into
// var/screenshots/<lang>-<screen>-<desktop|mobile>.png. Self-contained: builds the web app when it is
// stale, and starts what the screens need on loopback ports (a temporary database, an S3 stand-in,
// an SMTP catcher, the gateway and the billing service), registers and verifies a user through the
// screens and the e-mail link, gives it some usage, and tears everything down again, also on failure
// or Ctrl-C. Needs PostgreSQL and Redis (started when installed but not running) and Debian's Chromium.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { isSupportedLanguage } from "@kikitori/shared";
import type { Browser, Page } from "playwright-core";
import { dropDatabase } from "../services/shared/src/server/migrate.ts";
import { freePort, startLocalBilling, stopService } from "../tests/infra/service-process.ts";
import { launchBrowser } from "../tests/support/browser.ts";
import type { TestGateway } from "../tests/support/gateway.ts";
import { startS3Standin } from "../tests/support/global-setup.ts";
import type { startSmtpCatcher } from "../tests/support/smtp.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "var/screenshots");
const ALL_LANGS = ["en", "ja", "ar"];
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 375, height: 812 },
} as const;
type Variant = keyof typeof VIEWPORTS;
const PASSWORD = "a long enough password";

/** Screens open to visitors: file name part and path below /{lang}. */
const PUBLIC_SCREENS = [
  ["transcription", "transcription"],
  ["summary", "summary"],
  ["titles", "title-header-generator"],
  ["login", "login"],
  ["register", "register"],
  ["password-reset", "password-reset"],
  ["not-found", "no-such-page"],
] as const;

const started = performance.now();
const log = (m: string) => console.log(`[screenshots] ${m}`);
process.chdir(ROOT);

// ---------- cleanup, also on failure and Ctrl-C ----------

const cleanups: Array<() => unknown> = [];
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (e) {
        console.error("[screenshots] cleanup step failed:", (e as Error).message);
      }
    }
  })();
  return cleaning;
}
// Ctrl-C reaches this process twice (from the terminal and relayed by tsx): clean up once, ignore the rest.
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (cleaning) return;
    log(`${sig}: cleaning up`);
    void cleanup().then(() => process.exit(130));
  });
}

// ---------- setup ----------

async function prepare(): Promise<void> {
  // The helpers the test runner uses: services (PostgreSQL, Redis) and the web build when stale.
  const { ensureServices } = (await import("./lib/services.mjs" as string)) as {
    ensureServices: (o: { log: (m: string) => void }) => Promise<void>;
  };
  const { ensureWebBuild } = (await import("./lib/build.mjs" as string)) as {
    ensureWebBuild: (o: { log: (m: string) => void }) => boolean;
  };
  await ensureServices({ log });
  if (!ensureWebBuild({ log })) log("web/dist is up to date");

  let cjk = "";
  try {
    cjk = execFileSync("fc-list", [":lang=ja", "family"], { encoding: "utf8" }).trim();
  } catch {}
  if (!cjk) log("warning: no Japanese font installed, ja text will show as boxes (apt-get install fonts-noto-cjk)");
}

/** The S3 stand-in, as the test runs have it. */
async function startS3(): Promise<void> {
  const s3 = await startS3Standin();
  cleanups.push(() => s3.close());
}

async function startStack(): Promise<{ t: TestGateway; smtp: Awaited<ReturnType<typeof startSmtpCatcher>> }> {
  // Imported only now: the gateway helper reads the S3 and database settings set above.
  const { startSmtpCatcher } = await import("../tests/support/smtp.ts");
  const { startTestGateway } = await import("../tests/support/gateway.ts");
  const smtp = await startSmtpCatcher();
  cleanups.push(() => smtp.close());
  const billingPort = await freePort();
  const t = await startTestGateway({
    smtpUrl: smtp.url,
    fixedPort: true,
    env: { BILLING_URL: `http://127.0.0.1:${billingPort}` },
  });
  // t.close() also drops the temporary database; should an earlier step of it fail, drop it anyway.
  cleanups.push(() => dropDatabase(t.databaseUrl));
  cleanups.push(() => t.close());
  const billing = await startLocalBilling(t.env, billingPort);
  cleanups.push(() => stopService(billing));
  log(`gateway ${t.url}, billing :${billingPort}, database ${new URL(t.databaseUrl).pathname.slice(1)}`);
  return { t, smtp };
}

/** Registers through the screen, verifies through the e-mailed link, then gives the account some usage. */
async function createUser(
  browser: Browser,
  t: TestGateway,
  smtp: Awaited<ReturnType<typeof startSmtpCatcher>>,
): Promise<string> {
  const { tokenLinkFrom } = await import("../tests/support/gateway.ts");
  const email = `screenshots-${Date.now()}@example.com`;
  const ctx = await browser.newContext({ locale: "en-US" });
  try {
    const page = await ctx.newPage();
    await page.goto(`${t.url}/en/register`);
    await page.getByTestId("register-email").fill(email);
    await page.getByTestId("register-password").fill(PASSWORD);
    await page.getByTestId("register-submit").click();
    await page.getByTestId("register-success").waitFor();
    const { link } = tokenLinkFrom((await smtp.waitFor((m) => m.to.includes(email))).raw);
    await page.goto(link);
    await page.locator('[data-testid="verify-status"][data-status="success"]').waitFor();
  } finally {
    await ctx.close();
  }
  // 12.5 of 30 minutes, 2 of 3 summaries, 3 of 3 title runs (a full bar, to see the high state).
  await t.db.user.update({
    where: { email },
    data: { secondsUsed: 750, summariesUsed: 2, titleRunsUsed: 3 },
  });
  return email;
}

/**
 * Debian's Chromium with the flags of tests/support/browser.ts, but without Playwright's own Ctrl-C
 * handler, which would exit this process (code 130) before the cleanup above has run.
 */
/** Playwright's own signal handlers off: Ctrl-C must reach the cleanup above. */
const launchShotBrowser = () => launchBrowser({ handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });

// ---------- screenshots ----------

async function settle(page: Page, lang: string): Promise<void> {
  await page.waitForFunction(
    (l) => document.documentElement.lang === l && document.querySelector('[data-testid="page-title"]') !== null,
    lang,
  );
  await page.waitForLoadState("networkidle");
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

/** What sticks out sideways: the page itself, or content hidden in a horizontal scroller. */
async function overflowReport(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) out.push(`page is ${doc.scrollWidth - window.innerWidth}px too wide`);
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
      const o = getComputedStyle(el).overflowX;
      if (
        (o === "auto" || o === "scroll" || o === "hidden") &&
        el.scrollWidth > el.clientWidth + 1 &&
        el.clientWidth > 0
      ) {
        if (el.matches("textarea, input, select, .visually-hidden, .visually-hidden *")) continue;
        out.push(
          `.${Array.from(el.classList).join(".") || el.tagName.toLowerCase()} hides ${el.scrollWidth - el.clientWidth}px`,
        );
      }
    }
    return out;
  });
}

async function shoot(page: Page, file: string, written: string[]): Promise<void> {
  for (const problem of await overflowReport(page)) log(`${file}: ${problem}`);
  const out = path.join(OUT, file);
  await page.screenshot({ path: out, fullPage: true, animations: "disabled" });
  written.push(path.relative(ROOT, out));
}

async function shootLanguage(
  browser: Browser,
  base: string,
  email: string,
  lang: string,
  variant: Variant,
  written: string[],
): Promise<void> {
  const ctx = await browser.newContext({
    locale: "en-US",
    viewport: VIEWPORTS[variant],
    ...(variant === "mobile" ? { isMobile: true, hasTouch: true } : {}),
  });
  try {
    const page = await ctx.newPage();
    page.on("console", (m) => {
      if (/missing key/i.test(m.text())) log(`${lang} ${variant}: ${m.text()}`);
    });
    for (const [name, route] of PUBLIC_SCREENS) {
      await page.goto(`${base}/${lang}/${route}`);
      await settle(page, lang);
      await shoot(page, `${lang}-${name}-${variant}.png`, written);
    }
    if (variant === "mobile") {
      await page.goto(`${base}/${lang}/transcription`);
      await settle(page, lang);
      await page.getByTestId("menu-toggle").click();
      await page.locator("#site-menu.open").waitFor();
      await shoot(page, `${lang}-transcription-menu-${variant}.png`, written);
    }
    await page.goto(`${base}/${lang}/login`);
    await settle(page, lang);
    await page.getByTestId("login-email").fill(email);
    await page.getByTestId("login-password").fill(PASSWORD);
    await page.getByTestId("login-submit").click();
    await page.waitForURL(`${base}/${lang}/transcription`);
    await page.goto(`${base}/${lang}/upgrade-plan`);
    await settle(page, lang);
    await page.getByTestId("usage-minutes").waitFor();
    await page.getByTestId("plan-submit").waitFor();
    await shoot(page, `${lang}-upgrade-plan-${variant}.png`, written);
  } finally {
    await ctx.close();
  }
}

async function main(): Promise<void> {
  const langs = process.argv.slice(2).length ? process.argv.slice(2) : ALL_LANGS;
  const unknown = langs.filter((l) => !isSupportedLanguage(l));
  if (unknown.length) throw new Error(`not an interface language: ${unknown.join(", ")}`);
  await prepare();
  await startS3();
  const { t, smtp } = await startStack();
  const browser = await launchShotBrowser();
  cleanups.push(() => browser.close());
  const email = await createUser(browser, t, smtp);
  mkdirSync(OUT, { recursive: true });
  const written: string[] = [];
  for (const lang of langs) {
    for (const variant of Object.keys(VIEWPORTS) as Variant[]) {
      await shootLanguage(browser, t.url, email, lang, variant, written);
    }
  }
  for (const f of written) console.log(f);
  log(`${written.length} screenshots in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

let code = 0;
try {
  await main();
} catch (e) {
  console.error("[screenshots] failed:", e);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
