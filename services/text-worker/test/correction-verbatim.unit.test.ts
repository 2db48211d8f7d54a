/**
 * Clean verbatim with no tone: the interviewee's words are kept (contractions too); only fillers,
 * stutters, false starts and repeated words go; no question mark on a sentence that was not asked.
 * Both the offline rules and the check of a language model's answer (verbatim.ts).
 */
import { normWord, tokenize } from "@kikitori/shared/language";
import type { CorrectionTurn } from "../src/correction/index.ts";
import { asksByForm, formatFor, OfflineCorrectionEngine } from "../src/correction/offline.ts";
import { checkVerbatim, type VerbatimPlan } from "../src/correction/verbatim.ts";
import { correctionInput, FIXTURE_LANGUAGE, type FixtureName, fixture } from "./fixtures/correction-transcripts.ts";

const engine = new OfflineCorrectionEngine();

const input = correctionInput;

const turn = (speaker: number, text: string): CorrectionTurn => ({
  speaker,
  role: speaker === 0 ? "interviewer" : "interviewee",
  name: "",
  start: speaker,
  end: speaker + 1,
  text,
});

const CONTRACTIONS = ["I'm", "didn't", "we'd", "it's", "can't"];
const count = (text: string, word: string) =>
  (text.match(new RegExp(`(?<![\\p{L}'])${word}(?![\\p{L}'])`, "giu")) ?? []).length;

/** The words of a text, normalised, without the given fillers (punctuation and case do not count). */
const wordsOf = (text: string, lang: string, drop: string[] = []) =>
  tokenize(text, lang)
    .map((t) => normWord(t.norm, lang))
    .filter((w) => !drop.includes(w));

describe("offline engine, no tone: clean verbatim", () => {
  const ANSWER = "um i'm not sure i i didn't really know we'd moved by then it's hard to say i can't remember";

  it("keeps every contraction of an unpunctuated interview (flat transcript and heard turns)", async () => {
    const flat = `so what did you do after school ${ANSWER}`;
    const heard = [turn(0, "so what did you do after school"), turn(1, ANSWER)];
    for (const run of [input(flat), input("", { turns: heard })]) {
      const { text } = await engine.correct(run);
      for (const c of CONTRACTIONS) expect([c, count(text, c)]).toEqual([c, count(ANSWER, c.toLowerCase())]);
      expect(text).not.toMatch(/\b(I am|did not|we would|we had|it is|cannot)\b/i);
    }
  });

  it("keeps the contractions of a punctuated (Whisper) interview", async () => {
    const said =
      "What did you do after school? I'm not sure. I didn't really know. We'd moved by then. It's hard to say, I can't remember.";
    const { text } = await engine.correct(input(said));
    for (const c of CONTRACTIONS) expect([c, count(text, c)]).toEqual([c, 1]);
  });

  it("removes fillers, stutters, false starts and repeated words, and nothing else", async () => {
    const { text } = await engine.correct(
      input("", {
        turns: [
          turn(0, "what did you do then"),
          turn(1, "um we we moved to uh to the c- city and I- we opened the the shop"),
        ],
      }),
    );
    const answer = text.split("\n\n")[1];
    // "to uh to": a repeat across a filler.
    expect(answer).toBe("Interviewee: We moved to the city and we opened the shop.");
  });

  it("adds no question mark to a garbled or declarative answer, but keeps the interviewer's questions", async () => {
    const { text } = await engine.correct(
      input("", {
        turns: [
          turn(0, "what did you do after school"),
          turn(1, "what is the thing dis ago"),
          turn(1, "do you know the tow nice bee when we"),
          turn(1, "how it was hard"),
          turn(0, "and then"),
          turn(1, "then i opened the shop do you know it"),
        ],
      }),
    );
    expect(text.split("\n\n")).toEqual([
      "Interviewer: What did you do after school?",
      "Interviewee: What is the thing dis ago.",
      "Interviewee: Do you know the tow nice bee when we.",
      "Interviewee: How it was hard.",
      "Interviewer: And then.",
      // A short sentence that asks by its form ("do you …") keeps its question mark.
      "Interviewee: Then I opened the shop. Do you know it?",
    ]);
  });

  it("keeps the transcript's own question marks and every word of a German answer", async () => {
    const said = "ähm ich hab das nicht gewusst wir sind dann nach Berlin gezogen und das war's";
    const { text } = await engine.correct(
      input("", { language: "de", turns: [turn(0, "Was haben Sie dann gemacht?"), turn(1, said)] }),
    );
    const [q, a] = text.split("\n\n");
    expect(q).toMatch(/Was haben Sie dann gemacht\?$/);
    expect(a).not.toMatch(/\?/);
    expect(wordsOf(a, "de").slice(1)).toEqual(wordsOf(said, "de", ["ähm"]));
  });

  it("keeps every word of a Japanese answer (no spaces) and its question particle", async () => {
    const said = "えーと 私は そう 思いますね でも まあ よく わからないです";
    const { text } = await engine.correct(
      input("", { language: "ja", turns: [turn(0, "その後は何をしましたか"), turn(1, said)] }),
    );
    const [q, a] = text.split("\n\n");
    expect(q).toMatch(/しましたか？$/);
    const kept = a.replace(/^[^：:]*[：:]\s*/, "");
    expect(kept).not.toMatch(/えーと|まあ/);
    expect(kept.replace(/[、。\s]/g, "")).toBe("私はそう思いますねでもよくわからないです");
  });

  it("a tone may still reword: formal spells the contractions out", async () => {
    const { text } = await engine.correct(
      input("", { tone: "formal", turns: [turn(0, "what happened"), turn(1, ANSWER)] }),
    );
    expect(text).toMatch(/I am not sure/);
    expect(text).toMatch(/did not/);
  });
});

describe("offline engine, no tone, on the sample transcripts", () => {
  const names: FixtureName[] = ["interview", "whisper", "phonecall", "voicemail", "german", "japanese"];

  it.each(names)("%s: the rewrite passes the clean-verbatim check, every contraction kept", async (name) => {
    const transcript = fixture(name);
    const run = input(transcript, { language: FIXTURE_LANGUAGE[name] });
    const { text } = await engine.correct(run);
    const { lang, spaceless, ctx, format } = formatFor(run);
    const turns = checkVerbatim(transcript, text, { lang, spaceless, ctx, format, asksByForm });
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.flatMap((t) => t.problems)).toEqual([]);
    // A contraction said twice in a row ("it's, it's") is a repeat: written once.
    const contractions = (t: string) => [
      ...t
        .toLowerCase()
        .replace(/’/g, "'")
        .matchAll(/\b\w+'\w+\b/g),
    ];
    const found = contractions(transcript);
    const said = found
      .filter((m, k) => {
        const prev = found[k - 1];
        return !prev || prev[0] !== m[0] || !/^[,\s]+$/.test(transcript.slice(prev.index + prev[0].length, m.index));
      })
      .map((m) => m[0]);
    const written = contractions(text).map((m) => m[0]);
    expect(written.sort()).toEqual(said.sort());
  });
});

describe("checkVerbatim: a rewrite checked turn by turn", () => {
  const SOURCE =
    "Sarah: um so so what did you do after after school you know if you could tell us\n\nDavid: uh i'm not sure i i didn't really know we'd we'd moved to the c- city by then i went we went to the the shop and i can't remember what is the thing dis ago";
  const plan = (transcript: string, language = "en"): VerbatimPlan => {
    const { lang, spaceless, ctx, format } = formatFor(
      input(transcript, { language, interviewer: "Sarah", interviewee: "David" }),
    );
    return { lang, spaceless, ctx, format, asksByForm };
  };
  const problemsOf = (answer: string) => checkVerbatim(SOURCE, answer, plan(SOURCE)).map((t) => t.problems);

  it("accepts clean verbatim and a tightened question", () => {
    const clean =
      "Sarah: What did you do after school?\n\nDavid: I'm not sure, I didn't really know. We'd moved to the city by then. We went to the shop and I can't remember. What is the thing dis ago.";
    expect(problemsOf(clean)).toEqual([[], []]);
  });

  it("names spelled-out contractions, changed and added words, left-out words and an added question mark", () => {
    const [asked, answered] = problemsOf(
      "Sarah: What did you do after school?\n\nDavid: I am not sure, I did not really know. We'd moved to the city by then. We went to the store and I really can't remember. What is the thing this ago?",
    );
    expect(asked).toEqual([]);
    expect(answered).toEqual(
      expect.arrayContaining([
        `spelled out the contraction "i'm" as "I am"`,
        `spelled out the contraction "didn't" as "did not"`,
        `changed "shop" to "store"`,
        `added "really"`,
        `changed "dis" to "this"`,
        `added a question mark to "What is the thing this ago?"`,
      ]),
    );
    const [, dropped] = problemsOf(
      "Sarah: What did you do after school?\n\nDavid: I'm not sure. What is the thing dis ago.",
    );
    // Repeated words ("i i", "we'd we'd", "the the") may go: only the others are named.
    expect(dropped).toEqual([
      `left out "didn't really know moved to the city by then i went we went to shop and i can't remember"`,
    ]);
  });

  it("gives each turn the transcript words it stands for", () => {
    const turns = checkVerbatim(SOURCE, "Sarah: What did you do after school?\n\nDavid: I am not sure.", plan(SOURCE));
    expect(turns[0].source).toBe("um so so what did you do after after school you know if you could tell us");
    expect(turns[1].source).toMatch(/^(uh )?i'm not sure/);
    expect(turns[1].source.endsWith("dis ago")).toBe(true);
  });

  it("takes numbers said in words written as numerals, but only with the same value", () => {
    const said = "David: we moved there in twenty ten and it grew by five percent in nineteen eighty four";
    const p = plan(said);
    const ok = "David: We moved there in 2010 and it grew by 5% in 1984.";
    expect(checkVerbatim(said, ok, p)[0].problems).toEqual([]);
    const wrong = "David: We moved there in 2011 and it grew by 5% in 1984.";
    expect(checkVerbatim(said, wrong, p)[0].problems).toEqual([`changed "ten" to "2011"`, `left out "twenty"`]);
  });

  it("checks Japanese by words: fillers may go, words may not change", () => {
    const ja = "佐藤：えーと 私は そう 思いますね でも よく わからないです";
    const p = plan(ja, "ja");
    expect(checkVerbatim(ja, "佐藤：私はそう思いますね。でも、よくわからないです。", p)[0].problems).toEqual([]);
    expect(checkVerbatim(ja, "佐藤：私はそう考えますね。でも、よくわからないです。", p)[0].problems).not.toEqual([]);
  });
});
