/**
 * Generated two-voice interviews for measuring the fidelity check (scripts/bench-fidelity.ts): timed
 * segments with speakers as a transcription gives them (fillers, stutters), the clean verbatim
 * interview text made from them (labelled turns), and the same text with planted faults:
 *
 * - invented answer: a turn made only of words said elsewhere in the interview (from two answers far
 *   away, interleaved), inserted after an answer;
 * - swapped label: an answer under the interviewer's name;
 * - dropped answer: an answer left out of the interview text;
 * - expanded contraction: "I'm" → "I am", "やってる" → "やっている" in one answer sentence.
 *
 * Seeded, so every run measures the same texts.
 */
import type { FidelityOptions, FidelityReport } from "@kikitori/shared";
import { rng } from "./lib/ggml-synth.ts";

export const FAULTS = ["invented answer", "swapped label", "dropped answer", "expanded contraction"] as const;
export type FaultKind = (typeof FAULTS)[number];

interface Turn {
  speaker: 0 | 1;
  /** Clean verbatim sentences of the turn. */
  sentences: string[];
  /** Segment indexes of the turn (one per sentence). */
  segments: number[];
}

export interface GeneratedInterview {
  language: "en" | "ja";
  raw: string;
  interview: string;
  turns: Turn[];
  segments: Array<{ start: number; end: number; text: string; speaker: number }>;
  names: [string, string];
  options: FidelityOptions;
}

const EN = {
  noun: "bakery workshop factory contract garden ferry warehouse loan harvest orchestra newspaper clinic school bridge market boat kitchen license shop roof".split(
    " ",
  ),
  nouns: "ovens workers tables tickets boxes trucks barrels letters windows bicycles".split(" "),
  past: "bought sold built closed opened rented moved painted repaired lost found shipped".split(" "),
  base: "buy sell build close open rent move paint repair ship".split(" "),
  place: "Leeds Osaka Lagos Porto Hamburg Busan Quito Nairobi Lyon Tampere".split(" "),
  num: "two three four five six seven eight nine ten eleven twelve".split(" "),
  adj: "proud tired careful surprised worried lucky sure".split(" "),
  rel: "brother sister uncle grandmother partner cousin".split(" "),
  questions: [
    "How did you {base} the {noun}?",
    "When did your {rel} {base} the {noun}?",
    "Why did you go to {place}?",
    "What happened to the {noun} in {year}?",
    "Who {past} the {nouns}?",
    "And what about the {noun} in {place}?",
  ],
  answers: [
    "I'm {adj} about the {noun} we {past} in {place}.",
    "We didn't {base} the {noun} until {year}.",
    "It's true, we'd {past} {num} {nouns} by then.",
    "My {rel} {past} the {noun} near {place}.",
    "They {past} {num} {nouns} in {year}, and I'm still {adj}.",
    "We {past} the {noun} before the {nouns} came from {place}.",
    "The {noun} was {adj} work for my {rel}.",
    "In {year} we {past} all of the {nouns}.",
  ],
  expand: [
    ["I'm", "I am"],
    ["didn't", "did not"],
    ["It's", "It is"],
    ["we'd", "we had"],
  ],
  fillers: ["um", "uh", "you know", "like"],
  names: ["Sarah", "David Okafor"] as [string, string],
};

const JA = {
  noun: "パン屋 工房 工場 契約 庭園 倉庫 融資 収穫 新聞社 診療所 学校 市場 台所 商店 楽団".split(" "),
  place: "大阪 札幌 福岡 仙台 金沢 那覇 神戸 長崎 松本 函館".split(" "),
  rel: "兄 姉 叔父 祖母 相棒 いとこ".split(" "),
  num: "三 五 七 十二 二十".split(" "),
  adj: "大切 大変 順調 不安 特別".split(" "),
  questions: [
    "{place}の{noun}はいつ始めたんですか？",
    "{year}年に何があったんですか？",
    "{noun}について教えてください。",
    "{place}ではどうでしたか？",
    "{rel}さんは何をしていたんですか？",
  ],
  answers: [
    "{rel}が{place}で{noun}をやってるんです。",
    "{num}人の職人と{noun}を作ってました。",
    "{year}年には{place}に移ってたんです。",
    "{noun}は{adj}だと思ってます。",
    "{place}の{noun}じゃなくて、{noun}でした。",
    "{year}年に{place}へ引っ越しました。",
    "{rel}が{noun}を手伝ってくれました。",
    "{noun}の仕事はずっと{adj}でした。",
  ],
  expand: [
    ["やってる", "やっている"],
    ["作ってました", "作っていました"],
    ["移ってた", "移っていた"],
    ["思ってます", "思っています"],
    ["じゃなくて", "ではなくて"],
  ],
  fillers: ["えーと", "あの", "まあ"],
  names: ["佐藤", "田中"] as [string, string],
};

/** A two-voice interview of about `chars` characters of interview text. */
export function generateInterview(language: "en" | "ja", seed: number, chars: number): GeneratedInterview {
  const r = rng(seed * 7919 + (language === "ja" ? 1 : 0));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const L = language === "en" ? EN : JA;
  const fill = (template: string) =>
    template.replace(/\{(\w+)\}/g, (_m, k: string) => {
      if (k === "year") return String(1990 + Math.floor(r() * 33));
      return pick((L as unknown as Record<string, string[]>)[k]);
    });
  // The transcription of a clean sentence: a filler or two, a stutter, now and then.
  const spoken = (clean: string) => {
    if (language === "en") {
      const words = clean.split(" ");
      if (r() < 0.35) {
        const i = Math.floor(r() * words.length);
        words.splice(i, 0, `${pick(L.fillers)},`);
      }
      if (r() < 0.25) {
        const i = Math.floor(r() * words.length);
        words.splice(i, 0, words[i].replace(/[.,?!]$/, ","));
      }
      return words.join(" ");
    }
    let s = clean;
    if (r() < 0.35) s = `${pick(L.fillers)}、${s}`;
    if (r() < 0.25) s = s.slice(0, 2) + s;
    return s;
  };
  const turns: Turn[] = [];
  const segments: GeneratedInterview["segments"] = [];
  let t = 0;
  let length = 0;
  while (length < chars) {
    for (const speaker of [0, 1] as const) {
      const count = speaker === 0 ? 1 : 1 + Math.floor(r() * 3);
      const turn: Turn = { speaker, sentences: [], segments: [] };
      for (let i = 0; i < count; i++) {
        const clean = fill(pick(speaker === 0 ? L.questions : L.answers));
        const text = spoken(clean);
        const duration = text.length * (language === "en" ? 0.06 : 0.15);
        turn.sentences.push(clean);
        turn.segments.push(segments.length);
        segments.push({ start: Math.round(t * 100) / 100, end: Math.round((t + duration) * 100) / 100, text, speaker });
        t += duration + 0.4;
      }
      turns.push(turn);
      const sep = language === "en" ? " " : "";
      length += L.names[speaker].length + (language === "en" ? 2 : 1) + turn.sentences.join(sep).length + 2;
    }
  }
  const names = L.names;
  const iv: GeneratedInterview = {
    language,
    raw: segments.map((s) => s.text).join(language === "en" ? " " : ""),
    interview: "",
    turns,
    segments,
    names,
    options: {
      language,
      speakerNames: [...names],
      speakers: names.map((name, id) => ({ id, name })),
      segments,
    },
  };
  iv.interview = render(
    iv,
    turns.map((x) => ({ label: names[x.speaker], sentences: x.sentences })),
  );
  return iv;
}

function render(iv: GeneratedInterview, turns: Array<{ label: string; sentences: string[] }>): string {
  const colon = iv.language === "en" ? ": " : "：";
  return turns.map((x) => `${x.label}${colon}${x.sentences.join(iv.language === "en" ? " " : "")}`).join("\n\n");
}

export interface PlantedFault {
  kind: FaultKind;
  /** Whether the report lists this fault where it belongs. */
  caught: (r: FidelityReport) => boolean;
}

/** The interview with one fault of each kind, each in its own quarter of the interview. */
export function plantFaults(
  iv: GeneratedInterview,
  seed: number,
): { interview: string; faults: PlantedFault[]; otherFlags: (r: FidelityReport) => number } {
  const r = rng(seed * 104729 + 3);
  const L = iv.language === "en" ? EN : JA;
  const answers = iv.turns.map((t, i) => (t.speaker === 1 ? i : -1)).filter((i) => i >= 0);
  const quarter = (q: number, ok: (i: number) => boolean = () => true) => {
    const from = Math.floor((answers.length * q) / 4) + 1;
    const to = Math.floor((answers.length * (q + 1)) / 4) - 1;
    const inQuarter = answers.slice(from, Math.max(from + 1, to)).filter(ok);
    return inQuarter[Math.floor(r() * inQuarter.length)] ?? answers[from];
  };
  const [invAt, swapAt, dropAt] = [quarter(0), quarter(1), quarter(2)];
  const hasContraction = (i: number) => iv.turns[i].sentences.some((s) => L.expand.some(([a]) => s.includes(a)));
  const expandAt = quarter(3, hasContraction);

  // The invented answer: words of two answers far from where it stands, interleaved.
  const far = answers.filter((i) => Math.abs(i - invAt) > answers.length / 3);
  const a = iv.turns[far[Math.floor(r() * far.length)]].sentences[0];
  const b = iv.turns[far[Math.floor(r() * far.length)]].sentences.at(-1) as string;
  const words = (s: string) =>
    iv.language === "en"
      ? s.replace(/[.,?!]/g, "").split(" ")
      : [...new Intl.Segmenter("ja", { granularity: "word" }).segment(s)]
          .filter((x) => x.isWordLike)
          .map((x) => x.segment);
  const wa = words(a);
  const wb = words(b);
  const mixed: string[] = [];
  for (let i = 0; i < Math.max(wa.length, wb.length) && mixed.length < 9; i++) {
    if (i < wb.length && i % 2 === 0) mixed.push(wb[wb.length - 1 - i]);
    if (i < wa.length) mixed.push(wa[i]);
  }
  const invented =
    iv.language === "en" ? `${mixed.join(" ").replace(/^./, (c) => c.toUpperCase())}.` : `${mixed.join("")}。`;

  // The expanded contraction.
  const expTurn = iv.turns[expandAt];
  const expIndex = expTurn.sentences.findIndex((s) => L.expand.some(([c]) => s.includes(c)));
  const [from, to] = L.expand.find(([c]) => expTurn.sentences[expIndex]?.includes(c)) ?? ["", ""];
  const expanded = expIndex >= 0 ? expTurn.sentences[expIndex].replace(from, to) : "";

  const out: Array<{ label: string; sentences: string[] }> = [];
  iv.turns.forEach((turn, i) => {
    if (i === dropAt) return;
    const label = i === swapAt ? iv.names[0] : iv.names[turn.speaker];
    const sentences =
      i === expandAt && expIndex >= 0 ? turn.sentences.map((s, k) => (k === expIndex ? expanded : s)) : turn.sentences;
    out.push({ label, sentences });
    if (i === invAt) out.push({ label: iv.names[1], sentences: [invented] });
  });
  const droppedStarts = new Set(iv.turns[dropAt].segments.map((s) => iv.segments[s].start));
  const swapped = new Set(iv.turns[swapAt].sentences);
  const faults: PlantedFault[] = [
    { kind: "invented answer", caught: (rep) => rep.invented.some((f) => f.sentence === invented) },
    { kind: "swapped label", caught: (rep) => rep.misattributed.some((f) => swapped.has(f.sentence)) },
    { kind: "dropped answer", caught: (rep) => rep.dropped.some((d) => droppedStarts.has(d.startSeconds ?? -1)) },
    { kind: "expanded contraction", caught: (rep) => rep.reworded.some((f) => f.sentence === expanded) },
  ];
  const otherFlags = (rep: FidelityReport) =>
    rep.invented.filter((f) => f.sentence !== invented).length +
    rep.misattributed.filter((f) => !swapped.has(f.sentence)).length +
    rep.dropped.filter((d) => !droppedStarts.has(d.startSeconds ?? -1)).length +
    rep.reworded.filter((f) => f.sentence !== expanded).length;
  return { interview: render(iv, out), faults, otherFlags };
}
