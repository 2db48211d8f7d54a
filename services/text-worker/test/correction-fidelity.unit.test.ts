/**
 * Both correction engines measured by the workspace's fidelity check (services/shared/src/fidelity.ts):
 * the share of the interview's content words found in the raw transcript, sentences with
 * words the recording does not have, raw passages left out. The offline engine is measured on every
 * test transcript; the openai engine runs against a local stand-in of the API (no model can be
 * reached here), once answering with a faithful clean-up and once with an added sentence, which the
 * check must flag. `npm run bench:fidelity` prints the same figures, and measures a real model when
 * OPENAI_API_KEY is set.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fidelityReport } from "@kikitori/shared";
import { type CorrectionInput, OfflineCorrectionEngine } from "../src/correction/index.ts";
import { OpenAiCorrectionEngine } from "../src/correction/openai.ts";
import { FIXTURE_LANGUAGE, FIXTURES, type FixtureName, fixture } from "./fixtures/correction-transcripts.ts";

const NAMES = { interviewer: "Sarah", interviewee: "David Okafor" };
const input = (key: FixtureName, tone: CorrectionInput["tone"]): CorrectionInput => ({
  transcript: fixture(key),
  language: FIXTURE_LANGUAGE[key],
  ...NAMES,
  tone,
  interviewExample: "",
  fileType: "meeting",
});
const check = (key: FixtureName, text: string) =>
  fidelityReport(fixture(key), text, { language: FIXTURE_LANGUAGE[key], speakerNames: Object.values(NAMES) });

describe("offline engine", () => {
  const engine = new OfflineCorrectionEngine();
  it.each((Object.keys(FIXTURES) as FixtureName[]).flatMap((k) => [[k, null] as const, [k, "formal"] as const]))(
    "%s (tone %s): every content word traceable, nothing invented, nothing dropped",
    async (key, tone) => {
      const { text } = await engine.correct(input(key, tone));
      const r = check(key, text);
      expect(r.contentWords).toBeGreaterThan(10);
      expect(r.invented).toEqual([]);
      expect(r.figure).toBe(1);
      expect(r.dropped).toEqual([]);
    },
  );
});

describe("openai engine (local stand-in of the API)", () => {
  let server: http.Server;
  let baseURL = "";
  let answer: (section: string) => string = (s) => s;
  /** What the stand-in model answered, in order (the engine may keep or replace it). */
  let answered: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let data = "";
      req.on("data", (c) => {
        data += c;
      });
      req.on("end", () => {
        const body = JSON.parse(data) as { model: string; messages: Array<{ role: string; content: string }> };
        const user = body.messages.filter((m) => m.role === "user")[0].content;
        const section = /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(user)?.[1] ?? "";
        const text = answer(section);
        answered.push(text);
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 1_700_000_000,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: JSON.stringify({ text }), refusal: null },
                finish_reason: "stop",
                logprobs: null,
              },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const engine = () =>
    new OpenAiCorrectionEngine({
      baseURL,
      apiKey: "test-key",
      model: "test-model",
      sectionChars: 6000,
      timeoutMs: 5000,
      maxRetries: 0,
    });

  it("a faithful answer (the section with its fillers removed) measures 1", async () => {
    answer = (s) => s.replace(/\b(um+|uh+|you know|like)\b,?\s*/gi, "").trim();
    const { text } = await engine().correct(input("whisper", null));
    const r = check("whisper", text);
    expect(r.figure).toBe(1);
    expect(r.invented).toEqual([]);
  });

  // The engine checks a model's answer against clean verbatim and may fall back to its own text;
  // the fidelity check is measured on what the model answered, which is what it has to catch.
  it("an answer with an added sentence is flagged, and the figure drops", async () => {
    answered = [];
    answer = (s) => `${s.trim()} Our investors from Singapore paid 4 million dollars in 2017.`;
    await engine().correct(input("whisper", null));
    const r = check("whisper", answered.join("\n\n"));
    expect(r.invented.map((f) => f.sentence)).toContain("Our investors from Singapore paid 4 million dollars in 2017.");
    expect(r.invented.at(-1)?.words).toEqual(expect.arrayContaining(["investors", "Singapore", "4", "2017"]));
    expect(r.figure).toBeLessThan(0.95);
  });

  it("an answer that leaves half the section out shows the dropped passages", async () => {
    answered = [];
    answer = (s) => s.slice(0, Math.floor(s.length / 3)).replace(/\s+\S*$/, ".");
    await engine().correct(input("interview", null));
    const r = check("interview", answered.join("\n\n"));
    expect(r.dropped.length).toBeGreaterThan(0);
  });
});
