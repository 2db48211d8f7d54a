/**
 * The offline engine never invents content: once labels, punctuation and letter case are set
 * aside, the corrected text's words are the transcript's words, in the transcript's order, with
 * some left out (fillers, stutters). The only words it may write that the transcript does not
 * have are the tone rewrites ("don't" → "do not", "yeah" → "yes"), whitelisted below.
 */
import { type CorrectionInput, OfflineCorrectionEngine } from "../src/correction/index.ts";
import { EXPANSIONS } from "../src/correction/tone.ts";
import { type FixtureName, fixture } from "./fixtures/correction-transcripts.ts";

/** Words the tones may introduce (the parts of every expansion, and "has"/"had" of "it's been"/"I'd been"). */
const TONE_WORDS = new Set([
  ...Object.values(EXPANSIONS).flatMap((v) => v.toLowerCase().split(" ")),
  "has",
  "had",
  ...Object.keys(EXPANSIONS),
]);

function normWords(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[’‘]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu)
      ?.flatMap((w) => (EXPANSIONS[w] ?? w).toLowerCase().split(" ")) ?? []
  );
}

/** Characters that carry content in Japanese/Chinese (no word spaces): punctuation and spaces left out. */
function normChars(text: string): string[] {
  return [...text.replace(/[\s\p{P}\p{S}]/gu, "")];
}

function stripLabels(text: string, labels: string[]): string {
  const sorted = [...labels].sort((a, b) => b.length - a.length);
  return text
    .split("\n")
    .map((line) => {
      for (const l of sorted) if (line.startsWith(l)) return line.slice(l.length);
      return line;
    })
    .join("\n");
}

/** The first output unit that breaks "subsequence of the source, allowing whitelisted tone words", or null. */
function inventedUnit(source: string[], output: string[], allowed: Set<string>): string | null {
  let j = 0;
  for (const unit of output) {
    let k = j;
    while (k < source.length && source[k] !== unit) k++;
    if (k < source.length) j = k + 1;
    else if (!allowed.has(unit)) return unit;
  }
  return null;
}

const engine = new OfflineCorrectionEngine();
const small = new OfflineCorrectionEngine({ sectionChars: 250 });

const base: CorrectionInput = {
  transcript: "",
  language: "en",
  interviewer: "Sarah",
  interviewee: "David Okafor",
  tone: null,
  interviewExample: "",
  fileType: "meeting",
};

const VARIANTS: Array<{ name: string; over: Partial<CorrectionInput>; labels: string[] }> = [
  { name: "names", over: {}, labels: ["Sarah:", "David Okafor:", "Sarah：", "David Okafor："] },
  {
    name: "defaults",
    over: { interviewer: "", interviewee: "" },
    labels: ["Interviewer:", "Interviewee:", "インタビュアー：", "インタビュイー：", "Interviewer：", "Interviewee："],
  },
  { name: "Q/A", over: { interviewExample: "Q: Where?\nA: Osaka." }, labels: ["Q:", "A:"] },
  {
    name: "bold",
    over: { interviewExample: "**Host**: Hi.\n\n**Guest**: Hello." },
    labels: ["**Sarah**:", "**David Okafor**:"],
  },
  { name: "dash", over: { interviewExample: "— Where?\n— Osaka." }, labels: ["—"] },
  { name: "formal", over: { tone: "formal" }, labels: ["Sarah:", "David Okafor:", "Sarah：", "David Okafor："] },
  { name: "casual", over: { tone: "casual" }, labels: ["Sarah:", "David Okafor:", "Sarah：", "David Okafor："] },
  { name: "pop", over: { tone: "pop" }, labels: ["Sarah:", "David Okafor:", "Sarah：", "David Okafor："] },
  {
    name: "serious voicemail",
    over: { tone: "serious", fileType: "voicemail" },
    labels: ["Sarah:", "David Okafor:", "Sarah：", "David Okafor："],
  },
];

const FIXTURES: FixtureName[] = ["interview", "voicemail", "phonecall", "whisper", "japanese", "german"];

describe("offline engine: no invented words", () => {
  it("the checker itself catches an added word and accepts deletions and tone words", () => {
    const src = normWords("um i don't know the the answer");
    expect(inventedUnit(src, normWords("I do not know the answer."), TONE_WORDS)).toBeNull();
    expect(inventedUnit(src, normWords("I know the answer."), TONE_WORDS)).toBeNull();
    expect(inventedUnit(src, normWords("I know the right answer."), TONE_WORDS)).toBe("right");
    expect(inventedUnit(src, normWords("answer the"), new Set())).toBe("the");
  });

  it.each(FIXTURES)("every word of the corrected %s comes from the transcript, in order", async (name) => {
    const raw = fixture(name);
    const spaceless = name === "japanese";
    for (const { over, labels, name: variant } of VARIANTS) {
      for (const eng of [engine, small]) {
        const { text } = await eng.correct({ ...base, transcript: raw, ...over });
        const body = stripLabels(text, labels);
        const bad = spaceless
          ? inventedUnit(normChars(raw), normChars(body), new Set())
          : inventedUnit(normWords(raw), normWords(body), over.tone ? TONE_WORDS : new Set());
        if (bad !== null) throw new Error(`${name} / ${variant}: "${bad}" is not in the transcript\n${text}`);
        // And something is left: at least half of the transcript's words survive.
        const kept = spaceless
          ? normChars(body).length / normChars(raw).length
          : normWords(body).length / normWords(raw).length;
        expect(kept).toBeGreaterThan(0.5);
      }
    }
  });

  it("holds on random word salad too", async () => {
    const vocab =
      "um uh so i i think you know the the like well what how did you yes no it's don't gonna yeah w- we okay".split(
        " ",
      );
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 40; round++) {
      const raw = Array.from(
        { length: 20 + Math.floor(next() * 200) },
        () => vocab[Math.floor(next() * vocab.length)],
      ).join(" ");
      for (const tone of [null, "formal", "casual", "pop", "serious"] as const) {
        const { text } = await small.correct({ ...base, transcript: raw, tone });
        const bad = inventedUnit(
          normWords(raw),
          normWords(stripLabels(text, ["Sarah:", "David Okafor:"])),
          tone ? TONE_WORDS : new Set(),
        );
        if (bad !== null) throw new Error(`"${bad}" invented from: ${raw}\n→ ${text}`);
      }
    }
  });
});
