/**
 * The openai engine against a local stand-in of the OpenAI API: a tiny HTTP server on 127.0.0.1
 * answering POST /v1/chat/completions in the OpenAI response shape and recording the requests.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import { AppError } from "@kikitori/shared";
import { memoryStepStore } from "@kikitori/shared/server";
import type { CorrectionInput, CorrectionTurn } from "../src/correction/index.ts";
import {
  buildSystemPrompt,
  OpenAiCorrectionEngine,
  type OpenAiEngineConfig,
  parseAnswer,
} from "../src/correction/openai.ts";
import { splitIntoSections } from "../src/correction/sections.ts";
import { fixture } from "./fixtures/correction-transcripts.ts";

type ChatBody = {
  model: string;
  temperature: number;
  response_format: { type: string };
  messages: Array<{ role: string; content: string }>;
};
type Reply = {
  status?: number;
  content?: string | null;
  raw?: unknown;
  headers?: Record<string, string>;
  finish?: string;
};

interface StandIn {
  baseURL: string;
  requests: ChatBody[];
  paths: string[];
  /** Answers in order; when they run out, `fallback` answers. */
  replies: Reply[];
  fallback: (body: ChatBody) => Reply;
  close: () => Promise<void>;
}

/** The transcript section of a request, as the engine sends it. */
function sectionOf(body: ChatBody): string {
  const user = body.messages.filter((m) => m.role === "user")[0].content;
  return /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(user)?.[1] ?? "";
}

async function startStandIn(): Promise<StandIn> {
  const state: StandIn = {
    baseURL: "",
    requests: [],
    paths: [],
    replies: [],
    fallback: (body) => ({ content: JSON.stringify({ text: `[${sectionOf(body).trim().toUpperCase()}]` }) }),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => {
      data += c;
    });
    req.on("end", () => {
      state.paths.push(`${req.method} ${req.url}`);
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const body = JSON.parse(data) as ChatBody;
      state.requests.push(body);
      const reply = state.replies.shift() ?? state.fallback(body);
      const status = reply.status ?? 200;
      const headers = { "content-type": "application/json", ...(reply.headers ?? {}) };
      if (status !== 200) {
        res
          .writeHead(status, headers)
          .end(JSON.stringify(reply.raw ?? { error: { message: "boom", type: "server_error" } }));
        return;
      }
      res.writeHead(200, headers).end(
        JSON.stringify({
          id: `chatcmpl-${state.requests.length}`,
          object: "chat.completion",
          created: 1_700_000_000,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: reply.content ?? null, refusal: null },
              finish_reason: reply.finish ?? "stop",
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.baseURL = `http://127.0.0.1:${port}/v1`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

const input = (transcript: string, over: Partial<CorrectionInput> = {}): CorrectionInput => ({
  transcript,
  language: "en",
  interviewer: "Sarah",
  interviewee: "David",
  tone: "formal",
  interviewExample: "Q: Where?\nA: Osaka.",
  fileType: "meeting",
  ...over,
});

let api: StandIn;
beforeEach(async () => {
  api = await startStandIn();
});
afterEach(async () => {
  await api.close();
});

function engine(over: Partial<OpenAiEngineConfig> = {}): OpenAiCorrectionEngine {
  return new OpenAiCorrectionEngine({
    baseURL: api.baseURL,
    apiKey: "test-key",
    model: "test-model",
    sectionChars: 200,
    timeoutMs: 5000,
    overlapChars: 60,
    maxRetries: 0,
    ...over,
  });
}

/** ~550 characters: three sections of at most 200. */
const TRANSCRIPT = fixture("interview")
  .slice(0, 560)
  .replace(/\s\S*$/, "");

describe("openai engine", () => {
  it("corrects 3 sections with 3 calls, each after the first with the previous section's end as context", async () => {
    const sections = splitIntoSections(TRANSCRIPT, { maxChars: 200, overlapChars: 60 });
    expect(sections).toHaveLength(3);
    const progress: Array<[number, string, number, number]> = [];
    const result = await engine().correct(input(TRANSCRIPT), {
      onSection: (i, text, done, total) => {
        progress.push([i, text, done, total]);
      },
    });
    expect(api.requests).toHaveLength(3);
    expect(api.paths).toEqual(Array(3).fill("POST /v1/chat/completions"));
    for (const [i, req] of api.requests.entries()) {
      expect(req.model).toBe("test-model");
      expect(req.temperature).toBe(0.2);
      expect(req.response_format).toEqual({ type: "json_object" });
      expect(req.messages[0].role).toBe("system");
      expect(sectionOf(req)).toBe(sections[i].text);
      const user = req.messages[1].content;
      if (i === 0) expect(user).not.toContain("<context>");
      else {
        expect(sections[i].context.length).toBeGreaterThan(20);
        expect(user).toContain(`<context>\n${sections[i].context}\n</context>`);
        expect(user).toMatch(/do not repeat it/);
        // The corrected end of the previous section keeps the labels consistent.
        expect(user).toContain(`[${sections[i - 1].text.trim().toUpperCase()}]`.slice(-100));
      }
    }
    const texts = sections.map((s) => `[${s.text.trim().toUpperCase()}]`);
    expect(result.sections).toEqual(texts);
    expect(result.text).toBe(texts.join("\n"));
    expect(progress).toEqual(texts.map((t, i) => [i, t, i + 1, 3]));
  });

  it("puts the job, names, tone, example and the no-invention rule in the system message", async () => {
    await engine().correct(input("um so how did you start well i i started in twenty ten"));
    const system = api.requests[0].messages[0].content;
    expect(system).toContain('"Q:"');
    expect(system).toContain('"A:"');
    expect(system).toMatch(/formal/);
    expect(system).toContain("<example>\nQ: Where?\nA: Osaka.\n</example>");
    expect(system).toMatch(/Never add facts/);
    expect(system).toMatch(/never translate/);
    expect(system).toMatch(/\{"text"/);
    const named = buildSystemPrompt(input("x", { interviewExample: "", tone: null }));
    expect(named).toContain('"Sarah:"');
    expect(named).toContain('"David:"');
    expect(named).toContain("blank line");
    const ja = buildSystemPrompt(
      input(fixture("japanese"), { interviewer: "山田", interviewee: "佐藤", interviewExample: "", language: "ja" }),
    );
    expect(ja).toContain('"山田："');
    expect(ja).toContain('"佐藤："');
  });

  it("skips resumed sections and reports only the new ones", async () => {
    const resume = new Map([
      [0, "Sarah: Done zero."],
      [1, "David: Done one."],
    ]);
    const progress: number[][] = [];
    const result = await engine().correct(input(TRANSCRIPT), {
      steps: memoryStepStore(resume),
      onSection: (i, _t, done, total) => {
        progress.push([i, done, total]);
      },
    });
    expect(api.requests).toHaveLength(1);
    expect(progress).toEqual([[2, 3, 3]]);
    expect(result.sections.slice(0, 2)).toEqual(["Sarah: Done zero.", "David: Done one."]);
    expect(api.requests[0].messages[1].content).toContain("<previous>\nDavid: Done one.\n</previous>");
    expect(result.text.startsWith("Sarah: Done zero.\nDavid: Done one.\n[")).toBe(true);
  });

  it("asks once more, naming the problem, when the answer is not valid JSON", async () => {
    api.replies.push({ content: "Sure! Here is the text: Sarah: Hi." });
    const result = await engine().correct(input("so how did you start"));
    expect(api.requests).toHaveLength(2);
    const retry = api.requests[1].messages;
    expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry[2].content).toBe("Sure! Here is the text: Sarah: Hi.");
    expect(retry[3].content).toMatch(/not valid JSON/);
    expect(result.text).toBe("[SO HOW DID YOU START]");
  });

  it("also retries an answer of the wrong shape or cut off, and fails after the second bad answer", async () => {
    api.replies.push({ content: JSON.stringify({ answer: "x" }) });
    await expect(engine().correct(input("so how did you start"))).resolves.toMatchObject({
      text: "[SO HOW DID YOU START]",
    });
    expect(api.requests[1].messages[3].content).toMatch(/not an object \{"text": string\}/);

    api.requests.length = 0;
    api.replies.push({ content: '{"text": "Sarah: So how', finish: "length" }, { content: "still not json" });
    const err = await engine()
      .correct(input("so how did you start"))
      .catch((e) => e);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[1].messages[3].content).toMatch(/cut off/);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryable: true });
  });

  it("surfaces a 500 as a retryable error after the SDK's retries", async () => {
    const failing: Reply = { status: 500, headers: { "retry-after-ms": "1" } };
    api.replies.push(failing, failing, failing);
    const err = await engine({ maxRetries: 1 })
      .correct(input("so how did you start"))
      .catch((e) => e);
    expect(api.requests).toHaveLength(2);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryable: true, details: { status: 500, section: 0 } });
    expect(err.message).toMatch(/HTTP 500/);
  });

  it("marks a 401 as not retryable, and keeps the sections done before a failure", async () => {
    api.replies.push({ status: 401, raw: { error: { message: "bad key", type: "invalid_request_error" } } });
    await expect(engine().correct(input("hello"))).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      retryable: false,
    });

    const saved = new Map<number, string>();
    api.replies.push(
      { content: JSON.stringify({ text: "first" }) },
      { status: 503, headers: { "retry-after-ms": "1" } },
    );
    await expect(engine().correct(input(TRANSCRIPT), { steps: memoryStepStore(saved) })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
    });
    expect([...saved]).toEqual([[0, "first"]]);
    // A retry with what was saved asks only for the rest.
    api.requests.length = 0;
    const result = await engine().correct(input(TRANSCRIPT), { steps: memoryStepStore(saved) });
    expect(api.requests).toHaveLength(2);
    expect(result.sections[0]).toBe("first");
  });

  it("sends nothing for an empty transcript and stops when aborted", async () => {
    expect(await engine().correct(input(""))).toEqual({ text: "", sections: [] });
    expect(api.requests).toHaveLength(0);
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    await expect(engine().correct(input(TRANSCRIPT), { signal: controller.signal })).rejects.toThrow("cancelled");
    expect(api.requests).toHaveLength(0);
  });
});

describe("parseAnswer", () => {
  it("accepts fenced JSON and rejects empty or runaway answers", () => {
    expect(parseAnswer('```json\n{"text": " Q: Hi? "}\n```', "hi")).toBe("Q: Hi?");
    expect(() => parseAnswer("", "hi")).toThrow(/empty/);
    expect(() => parseAnswer('{"text": ""}', "hi there")).toThrow(/empty/);
    expect(parseAnswer('{"text": ""}', "   ")).toBe("");
    expect(() => parseAnswer(JSON.stringify({ text: "x".repeat(800) }), "short")).toThrow(/far longer/);
  });
});

describe("openai engine, no tone: clean verbatim, checked turn by turn", () => {
  const turns: CorrectionTurn[] = [
    { speaker: 0, role: "interviewer", name: "Sarah", start: 0, end: 2, text: "so um what did you do after school" },
    {
      speaker: 1,
      role: "interviewee",
      name: "David",
      start: 2,
      end: 6,
      text: "um i'm not sure i i didn't really know we'd moved by then it's hard i can't remember",
    },
  ];
  const noTone = input("", { tone: null, interviewExample: "", turns });
  const QUESTION = "Sarah: What did you do after school?";
  const CLEAN = `${QUESTION}\n\nDavid: I'm not sure, I didn't really know. We'd moved by then. It's hard, I can't remember.`;
  const EXPANDED = `${QUESTION}\n\nDavid: I am not sure, I did not really know. We had moved by then. It is hard, I cannot remember.`;
  const answer = (text: string): Reply => ({ content: JSON.stringify({ text }) });

  it("tells the model to keep the interviewee's words, and takes a clean-verbatim answer as it is", async () => {
    api.replies.push(answer(CLEAN));
    const result = await engine().correct(noTone);
    expect(api.requests).toHaveLength(1);
    expect(result.text).toBe(CLEAN);
    const system = api.requests[0].messages[0].content;
    expect(system).toMatch(/Clean verbatim/);
    expect(system).toMatch(/Never spell out or add contractions \(keep "I'm", "didn't", "we'd"/);
    expect(system).toMatch(/interviewer's questions may be tightened/);
    expect(system).not.toMatch(/- Tone:/);
  });

  it("asks once more, naming the spelled-out contractions, and takes the corrected answer", async () => {
    api.replies.push(answer(EXPANDED), answer(CLEAN));
    const result = await engine().correct(noTone);
    expect(api.requests).toHaveLength(2);
    const again = api.requests[1].messages;
    expect(again.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(again[3].content).toContain(`spelled out the contraction "i'm" as "I am"`);
    expect(again[3].content).toContain(`spelled out the contraction "didn't" as "did not"`);
    expect(result.text).toBe(CLEAN);
  });

  it("falls back to the rules' clean-verbatim text of a turn that drifts twice, keeping the other turns", async () => {
    api.replies.push(answer(EXPANDED), answer(EXPANDED));
    const result = await engine().correct(noTone);
    expect(api.requests).toHaveLength(2);
    const [asked, answered] = result.text.split("\n\n");
    // The interviewer's tightened question is the model's; the answer is the interviewee's own words.
    expect(asked).toBe(QUESTION);
    expect(answered).toBe("David: I'm not sure I didn't really know we'd moved by then. It's hard I can't remember.");
    for (const c of ["I'm", "didn't", "we'd", "It's", "can't"]) expect(answered).toContain(c);
  });

  it("checks a flat transcript too, by the turns the model drew", async () => {
    const flat = input("so what did you do after school um i'm not sure i didn't really know", {
      tone: null,
      interviewExample: "",
    });
    const expanded = `${QUESTION}\n\nDavid: I am not sure, I did not really know.`;
    api.replies.push(answer(expanded), answer(expanded));
    const result = await engine().correct(flat);
    expect(api.requests).toHaveLength(2);
    expect(result.text).toBe(`${QUESTION}\n\nDavid: I'm not sure I didn't really know.`);
  });

  it("does not let a question mark be added to a garbled answer", async () => {
    const garbled = input("", {
      tone: null,
      interviewExample: "",
      turns: [turns[0], { ...turns[1], text: "what is the thing dis ago" }],
    });
    api.replies.push(answer(`${QUESTION}\n\nDavid: What is the thing dis ago?`));
    api.replies.push(answer(`${QUESTION}\n\nDavid: What is the thing dis ago?`));
    const result = await engine().correct(garbled);
    expect(api.requests[1].messages[3].content).toContain('added a question mark to "What is the thing dis ago?"');
    expect(result.text).toBe(`${QUESTION}\n\nDavid: What is the thing dis ago.`);
  });

  it("a tone may reword: a formal answer with contractions spelled out is taken at once", async () => {
    api.replies.push(answer(EXPANDED));
    const result = await engine().correct({ ...noTone, tone: "formal" });
    expect(api.requests).toHaveLength(1);
    expect(result.text).toBe(EXPANDED);
  });
});
