/// <reference lib="dom" />
// Accessibility check of every route in English, Japanese and Arabic (right to left): axe-core is
// injected into the page in Chromium and the test fails on any serious or critical violation.
// Routes for logged-in users are checked logged in (plan, account, the tools with usage and history).
import { createRequire } from "node:module";
import { jest } from "@jest/globals";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { browserStack, editTranscript } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(240_000);

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const PASSWORD = "a long enough password";
const LANGUAGES = ["en", "ja", "ar"] as const;
const FAILING = new Set(["serious", "critical"]);

/** Every route under /{lang}; `auth` ones are checked logged in. */
const ROUTES: Array<{ path: string; auth: boolean }> = [
  { path: "transcription", auth: false },
  { path: "summary", auth: false },
  { path: "title-header-generator", auth: false },
  { path: "login", auth: false },
  { path: "register", auth: false },
  { path: "password-reset", auth: false },
  { path: "password-reset/confirm?token=not-a-real-token-at-all", auth: false },
  { path: "verify-email?token=not-a-real-token-at-all", auth: false },
  { path: "no-such-page", auth: false },
  { path: "transcription", auth: true },
  { path: "summary", auth: true },
  { path: "title-header-generator", auth: true },
  { path: "upgrade-plan", auth: true },
  { path: "account", auth: true },
  { path: "transcriptions", auth: true },
];

const stack = browserStack({ billing: true });
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Runs axe on the page as it is and returns its serious and critical violations. */
async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: { id: string; impact: string | null; help: string; nodes: any[] }) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} :: ${n.failureSummary ?? ""}`),
    }));
  });
  return (violations as Violation[]).filter((v) => v.impact && FAILING.has(v.impact));
}

async function settle(page: Page, lang: string) {
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
  await page.getByTestId("page-title").first().waitFor();
  await page.waitForLoadState("networkidle");
  // Spinners of queries that have just answered.
  await page
    .waitForFunction(() => !document.querySelector('[role="status"] .spinner'), undefined, { timeout: 10_000 })
    .catch(() => undefined);
}

describe.each(LANGUAGES)("%s", (lang) => {
  it("every route has no serious or critical axe violations (visitor and logged in)", async () => {
    const user = await createUser(t);
    await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
    // The app's Content-Security-Policy allows no inline script: let the injected axe through.
    const ctx = await browser.newContext({ locale: lang, viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = await ctx.newPage();
    const found: Record<string, Violation[]> = {};

    for (const route of ROUTES.filter((r) => !r.auth)) {
      await page.goto(`${t.url}/${lang}/${route.path}`);
      await settle(page, lang);
      const v = await seriousViolations(page);
      if (v.length) found[`${route.path} (visitor)`] = v;
    }

    // The in-page login dialog of a visitor's tool action.
    await page.goto(`${t.url}/${lang}/summary`);
    await settle(page, lang);
    await page.getByTestId("summary-generate").click();
    await page.getByTestId("login-prompt").waitFor();
    const dialog = await seriousViolations(page);
    if (dialog.length) found["login dialog"] = dialog;

    await page.goto(`${t.url}/${lang}/login`);
    await page.getByTestId("login-email").fill(user.email);
    await page.getByTestId("login-password").fill(PASSWORD);
    await page.getByTestId("login-submit").click();
    await page.waitForURL(`${t.url}/${lang}/transcription`);
    for (const route of ROUTES.filter((r) => r.auth)) {
      await page.goto(`${t.url}/${lang}/${route.path}`);
      await settle(page, lang);
      const v = await seriousViolations(page);
      if (v.length) found[`${route.path} (logged in)`] = v;
    }

    // A finished job's page (the workspace), with the fidelity view open.
    const jobId = await insertJob(t.db, user.uid, {
      status: "completed",
      segments: [
        { start: 0, end: 2, text: "How did it start?", speaker: 0 },
        { start: 2.5, end: 5, text: "In a garage, in 2019.", speaker: 1 },
      ],
      transcription: "How did it start? In a garage, in 2019.",
      rewrittenText: "Anna: How did it start?\n\nBen: In a garage in Osaka, in 2019.",
      speakers: [
        { id: 0, name: "Anna", role: "interviewer" },
        { id: 1, name: "Ben", role: "interviewee" },
      ],
    });
    await page.goto(`${t.url}/${lang}/transcriptions/${jobId}`);
    await settle(page, lang);
    await page.getByTestId("ws-fidelity-open").click();
    await page.getByTestId("ws-fidelity-figure").waitFor();
    const workspace = await seriousViolations(page);
    if (workspace.length) found["job page (logged in)"] = workspace;
    // It opens in the read view (the words); its lines as fields, in Edit, too.
    await editTranscript(page);
    const editing = await seriousViolations(page);
    if (editing.length) found["job page, Edit (logged in)"] = editing;

    // The mobile layout with the menu open.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/${lang}/transcription`);
    await settle(page, lang);
    await page.getByTestId("menu-toggle").click();
    const menu = await seriousViolations(page);
    if (menu.length) found["mobile menu"] = menu;

    expect(found).toEqual({});
    await ctx.close();
  });
});
