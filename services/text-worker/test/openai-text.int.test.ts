// The `openai` text engine against a local HTTP stand-in of the OpenAI chat completions API:
// structured JSON requests, answers checked, a failing answer regenerated with the failures named,
// a bounded number of attempts, and API errors mapped to retryable or final failures.

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { jest } from "@jest/globals";
import { AppError, addMonthsAnchored } from "@kikitori/shared";
import { freePort, startService, waitForStatus } from "../../../tests/infra/service-process.ts";
import { api, startTestGateway } from "../../../tests/support/gateway.ts";
import { createTextEngine } from "../src/text/index.ts";
import type { OpenAiTextEngine } from "../src/text/openai.ts";
import { summarizeOffline } from "../src/text/summarize.ts";

jest.setTimeout(60_000);

const CORPUS = path.resolve(import.meta.dirname, "fixtures/text-corpus");
const heat = readFileSync(path.join(CORPUS, "en-article-heat.txt"), "utf8");
const farm = readFileSync(path.join(CORPUS, "ja-interview-farm.txt"), "utf8");

type Answer = { status?: number; content?: string; body?: unknown };

/** A minimal stand-in for POST /v1/chat/completions that replays scripted answers and records requests. */
class FakeOpenAi {
  requests: any[] = [];
  answers: Answer[] = [];
  private server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      this.requests.push({ headers: req.headers, body: JSON.parse(raw) });
      const a = this.answers.shift() ?? { status: 500, body: { error: { message: "no scripted answer" } } };
      const status = a.status ?? 200;
      const body =
        a.body ??
        ({
          id: `chatcmpl-${this.requests.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: "stand-in",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: a.content ?? "", refusal: null },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        } as const);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  url = "";
  async start() {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let fake: FakeOpenAi;
let engine: OpenAiTextEngine;
beforeAll(async () => {
  fake = new FakeOpenAi();
  await fake.start();
  engine = createTextEngine({
    TEXT_ENGINE: "openai",
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "sk-test",
    OPENAI_TIMEOUT_MS: 10_000,
    TEXT_MODEL: "gpt-test",
    TEXT_MAX_ATTEMPTS: 3,
  }) as OpenAiTextEngine;
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests = [];
  fake.answers = [];
});

const phrases = ["urban heat island effect", "Paris"];
const good = summarizeOffline({ text: heat, requiredPhrases: phrases, desiredLength: 1000 });
const missingParis = good.replaceAll("Paris", "the French capital");
const userMessages = (req: any) => req.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content);

describe("summary", () => {
  it("a first answer that misses a phrase is regenerated with the failure named", async () => {
    fake.answers = [
      { content: JSON.stringify({ summary: missingParis }) },
      { content: JSON.stringify({ summary: good }) },
    ];
    const summary = await engine.summarize({
      text: heat,
      requiredPhrases: phrases,
      desiredLength: 1000,
      language: "en",
    });
    expect(summary).toBe(good);
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(first.headers.authorization).toBe("Bearer sk-test");
    expect(first.body.model).toBe("gpt-test");
    expect(first.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "summary", strict: true },
    });
    expect(userMessages(first)[0]).toContain('"Paris"');
    expect(userMessages(first)[0]).toContain("between 900 and 1100 characters");
    // The second request carries the first answer and names what was wrong with it.
    expect(second.body.messages.at(-2)).toMatchObject({
      role: "assistant",
      content: JSON.stringify({ summary: missingParis }),
    });
    expect(userMessages(second).at(-1)).toContain('does not contain the required phrase "Paris"');
  });

  it("a length outside ±10% is named with the numbers", async () => {
    fake.answers = [
      { content: JSON.stringify({ summary: `${good} ${good}` }) },
      { content: JSON.stringify({ summary: good }) },
    ];
    await engine.summarize({ text: heat, requiredPhrases: phrases, desiredLength: 1000 });
    expect(userMessages(fake.requests[1]).at(-1)).toMatch(/has \d+ characters; it must have between 900 and 1100/);
  });

  it("gives up after TEXT_MAX_ATTEMPTS answers with GENERATION_FAILED (not retried by the queue)", async () => {
    fake.answers = [1, 2, 3, 4].map(() => ({ content: JSON.stringify({ summary: missingParis }) }));
    const err = await engine.summarize({ text: heat, requiredPhrases: phrases, desiredLength: 1000 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "GENERATION_FAILED", retryable: false });
    expect(fake.requests).toHaveLength(3);
  });

  it("an answer that is not JSON counts as a failed attempt", async () => {
    fake.answers = [{ content: "Here is your summary: ..." }, { content: JSON.stringify({ summary: good }) }];
    expect(await engine.summarize({ text: heat, requiredPhrases: phrases, desiredLength: 1000 })).toBe(good);
    expect(userMessages(fake.requests[1]).at(-1)).toContain("not a JSON object");
  });

  it("asks for the input's language (Japanese text, English UI)", async () => {
    const jaGood = summarizeOffline({ text: farm, requiredPhrases: ["スマート農業", "霜の被害"], desiredLength: 1000 });
    fake.answers = [{ content: JSON.stringify({ summary: jaGood }) }];
    await engine.summarize({
      text: farm,
      requiredPhrases: ["スマート農業", "霜の被害"],
      desiredLength: 1000,
      language: "en",
    });
    expect(fake.requests[0].body.messages[0].content).toContain("Write in Japanese");
  });
});

describe("titles and headings", () => {
  const text = heat;
  it("wrong counts and duplicates are regenerated until exact", async () => {
    fake.answers = [
      { content: JSON.stringify({ titles: ["Cool cities", "Cool cities"], headings: ["Heat", "Trees"] }) },
      {
        content: JSON.stringify({
          titles: ["Cool cities", "Trees against heat"],
          headings: ["Heat", "Trees", "Money"],
        }),
      },
    ];
    const out = await engine.titles({ text, numTitles: 2, numHeadings: 3, customPrompt: "make them catchy" });
    expect(out).toEqual({ titles: ["Cool cities", "Trees against heat"], headings: ["Heat", "Trees", "Money"] });
    const first = userMessages(fake.requests[0])[0];
    expect(first).toContain("exactly 2 different article titles");
    expect(first).toContain("exactly 3 sub-headings");
    expect(first).toContain("[Block 1]");
    expect(first).toContain("make them catchy");
    const retry = userMessages(fake.requests[1]).at(-1);
    expect(retry).toContain("There are 2 headings; exactly 3 are required.");
    expect(retry).toContain('The title "Cool cities" appears more than once');
  });
});

describe("the request steers, titles differ in wording, summaries end on a sentence", () => {
  it("a title using the request's words or reordering another is regenerated with both named", async () => {
    fake.answers = [
      {
        content: JSON.stringify({
          titles: ["What role for phrased?", "Heat and trees", "Trees and heat"],
          headings: ["Shade", "Trees"],
        }),
      },
      {
        content: JSON.stringify({
          titles: ["Why do cities need trees?", "Can shade cool a heatwave?", "Who pays for street trees?"],
          headings: ["Shade", "Trees"],
        }),
      },
    ];
    const customPrompt = "phrased as questions";
    const out = await engine.titles({ text: heat, numTitles: 3, numHeadings: 2, customPrompt });
    expect(out.titles[0]).toBe("Why do cities need trees?");
    const first = userMessages(fake.requests[0])[0];
    expect(first).toContain("not content: do not use any of its words that the text does not contain");
    const retry = userMessages(fake.requests[1]).at(-1);
    expect(retry).toContain('uses the word "phrased" from the user\'s request');
    expect(retry).toContain('"Trees and heat" only reorders the words of "Heat and trees"');
  });

  it("a summary that stops mid-sentence is regenerated", async () => {
    const cut = `${good.slice(0, good.lastIndexOf(" ", 1000))},`;
    fake.answers = [{ content: JSON.stringify({ summary: cut }) }, { content: JSON.stringify({ summary: good }) }];
    const summary = await engine.summarize({ text: heat, requiredPhrases: phrases, desiredLength: 1000 });
    expect(summary).toBe(good);
    expect(userMessages(fake.requests[0])[0]).toContain("End on a complete sentence");
    expect(userMessages(fake.requests[1]).at(-1)).toContain("ends mid-sentence");
  });
});

describe("API errors", () => {
  it("a server error is a passing fault (the queue may retry the job)", async () => {
    fake.answers = [
      { status: 503, body: { error: { message: "overloaded" } } },
      { status: 503, body: { error: { message: "overloaded" } } },
    ];
    const err = await engine.summarize({ text: heat, requiredPhrases: phrases, desiredLength: 1000 }).catch((e) => e);
    expect(err).toMatchObject({ code: "GENERATION_FAILED", retryable: true });
  });

  it("bad credentials are final", async () => {
    fake.answers = [{ status: 401, body: { error: { message: "invalid api key" } } }];
    const err = await engine.titles({ text: heat, numTitles: 1, numHeadings: 1, customPrompt: "" }).catch((e) => e);
    expect(err).toMatchObject({ code: "GENERATION_FAILED", retryable: false });
    expect(fake.requests).toHaveLength(1);
  });
});

describe("the worker process with TEXT_ENGINE=openai", () => {
  it("serves the summary call through BullMQ with the model's checked answer", async () => {
    const t = await startTestGateway();
    const port = await freePort();
    const svc = startService("text-worker", {
      ...t.env,
      OPS_HOST: "127.0.0.1",
      OPS_PORT: String(port),
      LOG_LEVEL: "warn",
      TEXT_ENGINE: "openai",
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "sk-worker",
      TEXT_MODEL: "gpt-worker",
    });
    try {
      await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, svc);
      const uid = randomUUID();
      const now = new Date();
      await t.db.user.create({
        data: {
          id: uid,
          email: `${uid}@example.com`,
          passwordHash: "x",
          emailVerified: true,
          periodStart: now,
          resetDate: addMonthsAnchored(now, 1),
          anchorDay: now.getUTCDate(),
        },
      });
      const token = await t.gw.signer.sign({ sub: uid, email: `${uid}@example.com`, email_verified: true });
      fake.answers = [
        { content: JSON.stringify({ summary: missingParis }) },
        { content: JSON.stringify({ summary: good }) },
      ];
      const r = await api(t.url, "POST", "/api/summary/summarize", {
        token,
        body: { uid, text: heat, requiredPhrases: phrases, desiredLength: 1000, language: "en" },
      });
      expect(r.status).toBe(200);
      expect(r.body.summary).toBe(good);
      expect(fake.requests.map((q) => q.body.model)).toEqual(["gpt-worker", "gpt-worker"]);
      const run = await t.db.textRun.findFirstOrThrow({ where: { userId: uid } });
      expect(run).toMatchObject({ status: "succeeded", engine: "openai:gpt-worker" });
      expect((await t.db.user.findUniqueOrThrow({ where: { id: uid } })).summariesUsed).toBe(1);
    } finally {
      svc.child.kill("SIGTERM");
      await svc.exited;
      await t.close();
    }
  });
});
