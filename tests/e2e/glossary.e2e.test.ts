/// <reference lib="dom" />
// The glossary in Chromium against the real gateway: the account page's Glossary section loads,
// counts and saves the terms (trimmed, without blanks and repeats, kept after a reload), refuses a
// term over 100 characters before sending; the upload form has the collapsible "Names and terms"
// field; and the fidelity view of a job lists a glossary spelling as such, not as a changed word.
import { randomUUID } from "node:crypto";
import { jest } from "@jest/globals";
import type { Browser, Page } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { browserStack } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(120_000);

const PASSWORD = "a long enough password";
const stack = browserStack({});
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

async function loggedIn(): Promise<{ page: Page; uid: string }> {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);
  return { page, uid: user.uid };
}

it("saves the account's glossary and keeps it", async () => {
  const { page, uid } = await loggedIn();
  // The upload form: the field is there, folded, and says the account's glossary is used when empty.
  const details = page.getByTestId("tx-glossary");
  expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
  await details.locator("summary").click();
  expect(await page.getByTestId("tx-glossary-terms").getAttribute("placeholder")).toMatch(/glossary of your account/);

  await page.goto(`${t.url}/en/account`);
  const terms = page.getByTestId("account-glossary-terms");
  await page.waitForFunction(() => {
    const ta = document.querySelector<HTMLTextAreaElement>('[data-testid="account-glossary-terms"]');
    return !!ta && !ta.disabled;
  });
  expect(await terms.inputValue()).toBe("");
  await terms.fill(" Honey Cake \n\nApprentices\nhoney cake");
  expect(await page.getByTestId("account-glossary-count").textContent()).toBe("Terms: 2 / 500");
  await page.getByTestId("account-glossary-save").click();
  await page.getByTestId("account-glossary-message").waitFor();
  expect(await page.getByTestId("account-glossary-message").textContent()).toBe("Glossary saved.");
  expect(await terms.inputValue()).toBe("Honey Cake\nApprentices");
  const row = await t.db.user.findUniqueOrThrow({ where: { id: uid } });
  expect(row.glossary).toEqual(["Honey Cake", "Apprentices"]);

  await page.reload();
  await page.waitForFunction(
    () =>
      document.querySelector<HTMLTextAreaElement>('[data-testid="account-glossary-terms"]')?.value ===
      "Honey Cake\nApprentices",
  );

  // A term over 100 characters: said at once, and not sent.
  await terms.fill(`Honey Cake\n${"x".repeat(101)}`);
  expect(await page.getByTestId("account-glossary-count").textContent()).toMatch(
    /too long: a term may have at most 100/,
  );
  await page.getByTestId("account-glossary-save").click();
  await page.getByTestId("account-glossary-message").waitFor();
  expect(await page.getByTestId("account-glossary-message").textContent()).toMatch(/too long/);
  expect((await t.db.user.findUniqueOrThrow({ where: { id: uid } })).glossary).toEqual(["Honey Cake", "Apprentices"]);
  await page.context().close();
});

it("shows a glossary spelling in the fidelity view as such", async () => {
  const { page, uid } = await loggedIn();
  const id = randomUUID();
  await insertJob(t.db, uid, {
    id,
    status: "completed",
    audioLanguage: "en",
    durationSeconds: 9,
    glossary: ["Honey Cake"],
    segments: [
      { start: 0, end: 3, text: "so what do you bake every morning", speaker: 0 },
      { start: 3, end: 9, text: "well honeycake mostly and bread on sundays", speaker: 1 },
    ],
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
    transcription: "so what do you bake every morning well honeycake mostly and bread on sundays",
    rewrittenText: "Anna: So what do you bake every morning?\n\nBen: Well, Honey Cake mostly, and bread on Sundays.",
  });
  await page.goto(`${t.url}/en/transcriptions/${id}`);
  await page.getByTestId("ws-fidelity-open").click();
  await page.getByTestId("ws-glossary-fixes").waitFor();
  expect(await page.getByTestId("ws-glossary-fix").allTextContents()).toEqual([
    "“honeycake” written “Honey Cake” (1×)",
  ]);
  expect(await page.getByTestId("ws-reworded-item").count()).toBe(0);
  expect(await page.getByTestId("ws-invented-item").count()).toBe(0);
  await page.context().close();
});
