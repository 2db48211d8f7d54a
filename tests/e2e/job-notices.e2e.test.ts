/// <reference lib="dom" />
// The job page shows a job's notices, in the page's language: a job whose speakers were told apart
// by the classic engine because the neural one failed says so, as does one transcribed by a less
// accurate engine because the best model for its language failed to load; a job without notices
// shows none. The transcription screen names the language routed around, and no setting.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { jest } from "@jest/globals";
import { AUDIO_LANGUAGE_CODES } from "@kikitori/shared";
import type { Browser } from "playwright-core";
import { hashPassword } from "../../services/gateway/src/auth/passwords.ts";
import { browserStack } from "../support/browser.ts";
import { insertJob } from "../support/db.ts";
import type { TestGateway } from "../support/gateway.ts";
import { createUser } from "../support/pipeline.ts";

jest.setTimeout(120_000);

const locale = (lang: string) =>
  JSON.parse(readFileSync(new URL(`../../web/src/locales/${lang}.json`, import.meta.url), "utf8"));
const PASSWORD = "a long enough password";
const stack = browserStack({});
let t: TestGateway;
let browser: Browser;
beforeAll(() => {
  ({ t, browser } = stack);
});

async function finishedJob(uid: string, notices: string[]): Promise<string> {
  const id = randomUUID();
  await insertJob(t.db, uid, {
    id,
    status: "completed",
    audioLanguage: "en",
    diarizationEngine: "classic",
    notices,
    segments: [
      { start: 0, end: 2, text: "How did it start?", speaker: 0 },
      { start: 2, end: 5, text: "In a small garage.", speaker: 1 },
    ],
    speakers: [
      { id: 0, name: "Anna", role: "interviewer" },
      { id: 1, name: "Ben", role: "interviewee" },
    ],
    transcription: "How did it start? In a small garage.",
    rewrittenText: "Anna: How did it start?\n\nBen: In a small garage.",
  });
  return id;
}

it("says on the job page when the speakers were told apart by the simpler engine, in the page's language", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const withNotice = await finishedJob(user.uid, ["diarization_fallback"]);
  const without = await finishedJob(user.uid, []);
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);

  for (const lang of ["en", "de"]) {
    await page.goto(`${t.url}/${lang}/transcriptions/${withNotice}`);
    const notice = page.getByTestId("ws-notice");
    await notice.waitFor();
    expect(await notice.getAttribute("data-code")).toBe("diarization_fallback");
    expect(await notice.textContent()).toBe(locale(lang).job.notices.diarization_fallback);
  }

  await page.goto(`${t.url}/en/transcriptions/${without}`);
  await page.getByTestId("ws-segment").first().waitFor();
  expect(await page.getByTestId("ws-notices").count()).toBe(0);
  await ctx.close();
});

it("says on the job page when a less accurate speech engine transcribed it, in the page's language", async () => {
  const user = await createUser(t);
  await t.db.user.update({ where: { id: user.uid }, data: { passwordHash: await hashPassword(PASSWORD) } });
  const both = await finishedJob(user.uid, ["diarization_fallback", "speech_fallback"]);
  const ctx = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${t.url}/en/login`);
  await page.getByTestId("login-email").fill(user.email);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`${t.url}/en/transcription`);

  for (const lang of ["en", "ja"]) {
    await page.goto(`${t.url}/${lang}/transcriptions/${both}`);
    const notice = page.locator('[data-testid="ws-notice"][data-code="speech_fallback"]');
    await notice.waitFor();
    expect(await notice.textContent()).toBe(locale(lang).job.notices.speech_fallback);
    expect(await page.getByTestId("ws-notice").count()).toBe(2);
  }
  await ctx.close();
});

it("the transcription screen names the language routed around and the engine it goes to, never a setting", async () => {
  // What a worker whose Parakeet model failed to load publishes (its real making is tested in
  // tests/pipeline/speech-routed-around.int.test.ts): German and English go to Whisper, Japanese is as usual.
  const status = {
    available: true,
    engine: "auto",
    model: "sensevoice:sense-voice-small-int8, whisper:base",
    languages: "all",
    notice: {
      code: "SPEECH_ROUTED_AROUND",
      setting: "PARAKEET_MODEL / PARAKEET_MODEL_DIR / MODELS_DIR (npm run models -- pull)",
      reason: "the parakeet model parakeet-tdt-0.6b-v3-int8 could not be loaded: bad encoder",
    },
    routes: AUDIO_LANGUAGE_CODES.map((language) => ({
      language,
      engine: language === "ja" ? "sensevoice" : "whisper",
      model: language === "ja" ? "sense-voice-small-int8" : "base",
      present: true,
      pull: null,
      ...(["en", "de"].includes(language)
        ? { routedAround: { engine: "parakeet", model: "parakeet-tdt-0.6b-v3-int8", reason: "bad encoder" } }
        : {}),
    })),
  };
  const ctx = await browser.newContext({ locale: "de-DE", viewport: { width: 1280, height: 900 } });
  await ctx.route("**/api/speech", (route) => route.fulfill({ json: status }));
  const page = await ctx.newPage();
  await page.goto(`${t.url}/de/transcription`);
  const notice = page.getByTestId("tx-speech-notice");
  await notice.waitFor();
  expect(await notice.getAttribute("data-code")).toBe("SPEECH_ROUTED_AROUND");
  expect(await notice.getAttribute("data-language")).toBe("de");
  const text = (await notice.textContent()) ?? "";
  expect(text).toContain("Deutsch");
  expect(text).toContain("Whisper");
  expect(text).not.toMatch(/[A-Z][A-Z0-9]*_[A-Z0-9_]+|npm |MODELS_DIR|\{\{/);

  // Japanese is not routed around: nothing to say.
  await page.getByTestId("tx-language").selectOption("ja");
  await notice.waitFor({ state: "detached" });
  await page.getByTestId("tx-language").selectOption("en");
  await notice.waitFor();
  expect(await notice.textContent()).toContain("Englisch");
  await ctx.close();
});
