// The summary and title/heading calls end to end through the API: validation codes, quota reserved
// and charged only for results (also under a 50-call race), the worker behind BullMQ, failures and
// time-outs giving the quota back, and the handler's idempotency.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { jest } from "@jest/globals";
import { addMonthsAnchored, charCount, QUEUES } from "@kikitori/shared";
import {
  createJobWorkers,
  createLogger,
  createObjectStore,
  createRedis,
  type JobLike,
  TEXT_RUN_STATUS,
  textInputKey,
} from "@kikitori/shared/server";
import { api, startTestGateway, type TestGateway } from "../../../tests/support/gateway.ts";
import { createTextProcessor, processTextJob } from "../../text-worker/src/handlers/text.ts";
import { OfflineTextEngine } from "../../text-worker/src/text/offline.ts";
import type { SummaryInput, TextEngine, TitlesInput } from "../../text-worker/src/text/port.ts";
import { loadGatewayConfig } from "../src/config.ts";

jest.setTimeout(60_000);

const CORPUS = path.resolve(import.meta.dirname, "../../text-worker/test/fixtures/text-corpus");
const article = readFileSync(path.join(CORPUS, "en-article-heat.txt"), "utf8");
const minutes = readFileSync(path.join(CORPUS, "de-protokoll-projekt.txt"), "utf8");

/** The offline engine, switchable per test to failing or slow, counting its calls. */
class TestEngine implements TextEngine {
  readonly name = "offline";
  mode: "normal" | "fail" | "slow" = "normal";
  calls = 0;
  private readonly inner = new OfflineTextEngine();
  private async gate(): Promise<void> {
    this.calls++;
    if (this.mode === "fail") throw new Error("model exploded");
    if (this.mode === "slow") await new Promise((r) => setTimeout(r, 5500));
  }
  async summarize(input: SummaryInput) {
    await this.gate();
    return this.inner.summarize(input);
  }
  async titles(input: TitlesInput) {
    await this.gate();
    return this.inner.titles(input);
  }
}

let t: TestGateway;
let worker: { close(): Promise<void>; waitUntilReady(): Promise<unknown> };
let workerRedis: ReturnType<typeof createRedis>;
const engine = new TestEngine();
let store: ReturnType<typeof createObjectStore>;

beforeAll(async () => {
  t = await startTestGateway({ env: { TEXT_JOB_TIMEOUT_MS: "4000" } });
  const cfg = loadGatewayConfig(t.env);
  store = createObjectStore(cfg);
  workerRedis = createRedis(cfg.REDIS_URL, "worker");
  // As services/text-worker/src/main.ts does: the registry's bootstrap, one handler per job name.
  const logger = createLogger("text-worker-test", "silent");
  const processText = createTextProcessor({ db: t.db, store, engine, logger });
  [worker] = createJobWorkers(
    { connection: workerRedis, prefix: t.prefix, logger },
    { [QUEUES.text]: { handlers: { summary: processText, titles: processText }, concurrency: 8 } },
  ).workers;
  await worker.waitUntilReady();
});
afterAll(async () => {
  await worker?.close();
  await workerRedis?.quit();
  await t?.close();
});
beforeEach(() => {
  engine.mode = "normal";
});

async function createUser(plan: "free" | "standard" = "free") {
  const uid = randomUUID();
  const now = new Date();
  await t.db.user.create({
    data: {
      id: uid,
      email: `${uid}@example.com`,
      passwordHash: "x",
      emailVerified: true,
      plan,
      periodStart: now,
      resetDate: addMonthsAnchored(now, 1),
      anchorDay: now.getUTCDate(),
    },
  });
  const token = await t.gw.signer.sign({ sub: uid, email: `${uid}@example.com`, email_verified: true });
  return { uid, token };
}

const used = async (uid: string) => {
  const u = await t.db.user.findUniqueOrThrow({ where: { id: uid } });
  return { summaries: u.summariesUsed, titles: u.titleRunsUsed };
};

const summaryBody = (over: Record<string, unknown> = {}) => ({
  text: article,
  requiredPhrases: ["street tree", "Paris", ""],
  desiredLength: 1200,
  language: "en",
  ...over,
});
const titlesBody = (over: Record<string, unknown> = {}) => ({
  originalText: minutes,
  numHeadingsPerArticle: 4,
  numTitles: 3,
  customPrompt: "",
  ...over,
});

it("both calls are in the OpenAPI document", async () => {
  const doc = await api(t.url, "GET", "/api/docs/json");
  expect(doc.status).toBe(200);
  expect(Object.keys(doc.body.paths)).toEqual(
    expect.arrayContaining(["/api/summary/summarize", "/api/generate-titles-and-headings"]),
  );
  expect(doc.body.paths["/api/summary/summarize"].post.responses).toHaveProperty("402");
});

describe("authentication", () => {
  it("requires a bearer token and the token's own uid", async () => {
    const none = await api(t.url, "POST", "/api/summary/summarize", { body: summaryBody() });
    expect([none.status, none.body.error.code]).toEqual([401, "UNAUTHENTICATED"]);
    const { token } = await createUser();
    const other = await api(t.url, "POST", "/api/generate-titles-and-headings", {
      token,
      body: titlesBody({ uid: randomUUID() }),
    });
    expect([other.status, other.body.error.code]).toEqual([403, "UID_MISMATCH"]);
  });
});

describe("validation: one code per rule, nothing charged", () => {
  const long = "a".repeat(200_001);
  it.each([
    ["blank text", { text: "  \n " }, "TEXT_BLANK"],
    ["text over the limit", { text: long }, "TEXT_TOO_LONG"],
    ["desired length below 100", { desiredLength: 99 }, "DESIRED_LENGTH_OUT_OF_RANGE"],
    ["desired length over 10000", { desiredLength: 10_001 }, "DESIRED_LENGTH_OUT_OF_RANGE"],
    ["desired length over the text's length", { desiredLength: charCount(article) + 1 }, "DESIRED_LENGTH_TOO_LONG"],
    ["no required phrase", { requiredPhrases: ["", " "] }, "REQUIRED_PHRASES_MISSING"],
    ["one non-empty required phrase", { requiredPhrases: ["Paris", "  ", ""] }, "REQUIRED_PHRASES_MISSING"],
    ["the same phrase twice", { requiredPhrases: ["Paris", " Paris "] }, "REQUIRED_PHRASES_MISSING"],
    [
      "too many phrases",
      { requiredPhrases: Array.from({ length: 21 }, (_, i) => `p${i}`) },
      "REQUIRED_PHRASES_TOO_MANY",
    ],
    ["a phrase over 200 characters", { requiredPhrases: ["Paris", "x".repeat(201)] }, "REQUIRED_PHRASE_TOO_LONG"],
    [
      "phrases longer than the summary",
      { desiredLength: 1000, requiredPhrases: Array.from({ length: 6 }, (_, i) => `${i}${"y".repeat(180)}`) },
      "REQUIRED_PHRASES_EXCEED_LENGTH",
    ],
  ])("summary: %s", async (_name, over, code) => {
    const { uid, token } = await createUser();
    const r = await api(t.url, "POST", "/api/summary/summarize", { token, body: summaryBody(over) });
    expect([r.status, r.body.error.code]).toEqual([400, code]);
    expect(r.body.error.message).toEqual(expect.any(String));
    expect(await used(uid)).toEqual({ summaries: 0, titles: 0 });
  });

  it("summary: the desired length may equal the text's length", async () => {
    const { token } = await createUser();
    const text = article.slice(0, 1500);
    const r = await api(t.url, "POST", "/api/summary/summarize", {
      token,
      body: summaryBody({ text, desiredLength: charCount(text) }),
    });
    expect(r.status).toBe(200);
  });

  it.each([
    ["blank text", { originalText: "\n\t " }, "TEXT_BLANK"],
    ["no headings", { numHeadingsPerArticle: 0 }, "COUNT_TOO_LOW"],
    ["negative titles", { numTitles: -1 }, "COUNT_TOO_LOW"],
    ["too many titles", { numTitles: 21 }, "COUNT_TOO_HIGH"],
    ["too many headings", { numHeadingsPerArticle: 51 }, "COUNT_TOO_HIGH"],
    ["custom request over 1000 characters", { customPrompt: "z".repeat(1001) }, "CUSTOM_PROMPT_TOO_LONG"],
  ])("titles: %s", async (_name, over, code) => {
    const { uid, token } = await createUser();
    const r = await api(t.url, "POST", "/api/generate-titles-and-headings", { token, body: titlesBody(over) });
    expect([r.status, r.body.error.code]).toEqual([400, code]);
    expect(await used(uid)).toEqual({ summaries: 0, titles: 0 });
  });

  it("wrong types are VALIDATION_FAILED", async () => {
    const { token } = await createUser();
    const r = await api(t.url, "POST", "/api/summary/summarize", {
      token,
      body: summaryBody({ desiredLength: "3002" }),
    });
    expect([r.status, r.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
  });
});

describe("generation through the worker", () => {
  it("summarises: phrases verbatim, length within ±10%, one summary charged, input stored under the user", async () => {
    const { uid, token } = await createUser();
    const r = await api(t.url, "POST", "/api/summary/summarize", { token, body: summaryBody({ uid }) });
    expect(r.status).toBe(200);
    const summary: string = r.body.summary;
    expect(summary).toContain("street tree");
    expect(summary).toContain("Paris");
    expect(charCount(summary)).toBeGreaterThanOrEqual(1080);
    expect(charCount(summary)).toBeLessThanOrEqual(1320);
    expect(await used(uid)).toEqual({ summaries: 1, titles: 0 });
    const run = await t.db.textRun.findFirstOrThrow({ where: { userId: uid } });
    expect(run).toMatchObject({
      kind: "summary",
      status: "succeeded",
      engine: "offline",
      inputChars: charCount(article),
    });
    expect(run.result).toEqual({ summary });
    expect(await store.stat(textInputKey(uid, run.id))).not.toBeNull();
    expect(r.body.missingPhrases).toEqual([]);
  });

  it("summarises a short text to 100 characters and names the required phrase the text lacks", async () => {
    const { token } = await createUser();
    const text = article.slice(0, 600);
    const r = await api(t.url, "POST", "/api/summary/summarize", {
      token,
      body: summaryBody({ text, desiredLength: 100, requiredPhrases: ["heat", "quantum physics"] }),
    });
    expect(r.status).toBe(200);
    expect(r.body.missingPhrases).toEqual(["quantum physics"]);
    expect(r.body.summary).toContain("The discussion also relates to quantum physics.");
  });

  it("generates exact counts of titles and headings, one title run charged", async () => {
    const { uid, token } = await createUser();
    const r = await api(t.url, "POST", "/api/generate-titles-and-headings", { token, body: titlesBody() });
    expect(r.status).toBe(200);
    expect(r.body.titles).toHaveLength(3);
    expect(new Set(r.body.titles).size).toBe(3);
    expect(r.body.headings).toHaveLength(4);
    for (const s of [...r.body.titles, ...r.body.headings]) expect(s.trim()).not.toBe("");
    expect(await used(uid)).toEqual({ summaries: 0, titles: 1 });
  });

  it("a failed generation answers 502 GENERATION_FAILED and gives the quota back", async () => {
    const { uid, token } = await createUser();
    engine.mode = "fail";
    const r = await api(t.url, "POST", "/api/summary/summarize", { token, body: summaryBody() });
    expect([r.status, r.body.error.code]).toEqual([502, "GENERATION_FAILED"]);
    expect(r.body.error.link).toEqual(expect.any(String));
    expect(await used(uid)).toEqual({ summaries: 0, titles: 0 });
    const run = await t.db.textRun.findFirstOrThrow({ where: { userId: uid } });
    expect(run.status).toBe("failed");
  });

  it("a generation slower than TEXT_JOB_TIMEOUT_MS answers 504, and its late result is not charged", async () => {
    const { uid, token } = await createUser();
    engine.mode = "slow";
    const r = await api(t.url, "POST", "/api/generate-titles-and-headings", { token, body: titlesBody() });
    expect([r.status, r.body.error.code]).toEqual([504, "GENERATION_TIMEOUT"]);
    expect(await used(uid)).toEqual({ summaries: 0, titles: 0 });
    // Let the slow job finish: the run stays timed out and nothing is charged.
    await new Promise((res) => setTimeout(res, 2500));
    const run = await t.db.textRun.findFirstOrThrow({ where: { userId: uid } });
    expect(run.status).toBe("timed_out");
    expect(run.result).toBeNull();
    expect(await used(uid)).toEqual({ summaries: 0, titles: 0 });
  });

  it("the month's quota is used up → 402 QUOTA_EXCEEDED with a link to the plan page", async () => {
    const { uid, token } = await createUser();
    await t.db.user.update({ where: { id: uid }, data: { titleRunsUsed: 3 } });
    const r = await api(t.url, "POST", "/api/generate-titles-and-headings", { token, body: titlesBody() });
    expect([r.status, r.body.error.code]).toEqual([402, "QUOTA_EXCEEDED"]);
    expect(r.body.error.link).toMatch(/\/en\/upgrade-plan$/);
    expect(await t.db.textRun.count({ where: { userId: uid } })).toBe(0);
  });
});

describe("quota race", () => {
  it("50 concurrent summary calls with 3 left: exactly 3 succeed, 47 get 402, 3 are charged", async () => {
    const { uid, token } = await createUser();
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => api(t.url, "POST", "/api/summary/summarize", { token, body: summaryBody() })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(47);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error.code).toBe("QUOTA_EXCEEDED");
    expect(await used(uid)).toEqual({ summaries: 3, titles: 0 });
    expect(await t.db.textRun.count({ where: { userId: uid, status: "succeeded" } })).toBe(3);
    console.log(
      `quota race: 50 calls, ${statuses.filter((s) => s === 200).length} × 200 in ${Date.now() - started} ms`,
    );
  });

  it("50 concurrent title calls with 3 left: exactly 3 succeed", async () => {
    const { uid, token } = await createUser();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api(t.url, "POST", "/api/generate-titles-and-headings", { token, body: titlesBody() }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402 && r.body.error.code === "QUOTA_EXCEEDED")).toHaveLength(47);
    expect(await used(uid)).toEqual({ summaries: 0, titles: 3 });
  });
});

describe("the text job handler", () => {
  it("is idempotent: a finished run returns its stored result without generating again", async () => {
    const { uid, token } = await createUser();
    const r = await api(t.url, "POST", "/api/summary/summarize", { token, body: summaryBody() });
    expect(r.status).toBe(200);
    const run = await t.db.textRun.findFirstOrThrow({ where: { userId: uid } });
    const calls = engine.calls;
    const job: JobLike<unknown> = {
      id: run.id,
      name: "summary",
      data: { runId: run.id, userId: uid, kind: "summary", inputKey: textInputKey(uid, run.id) },
      attemptsMade: 0,
      opts: { attempts: 2 },
    };
    const again = await processTextJob({ db: t.db, store, engine, logger: createLogger("t", "silent") }, job);
    expect(again).toEqual({ summary: r.body.summary });
    expect(engine.calls).toBe(calls);
    expect(await used(uid)).toEqual({ summaries: 1, titles: 0 });
    expect((await t.db.textRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe(TEXT_RUN_STATUS.succeeded);
  });

  it("refuses a payload that does not fit, without retrying", async () => {
    await expect(
      processTextJob(
        { db: t.db, store, engine, logger: createLogger("t", "silent") },
        {
          id: "x",
          name: "summary",
          data: { runId: "not-a-uuid" },
          attemptsMade: 0,
          opts: { attempts: 2 },
        },
      ),
    ).rejects.toMatchObject({ name: "UnrecoverableError" });
  });
});
