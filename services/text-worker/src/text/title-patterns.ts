/** Headline patterns of the offline title generator, per language, and the words a title is made of. */
import { spacingOf, tokenize } from "@kikitori/shared/language";
import { foldWord } from "./keyphrases.ts";

export interface Patterns {
  normal: string[];
  question: string[];
  short: string[];
  list: string[];
  interview: string[];
  meeting: string[];
  formal: string[];
  casual: string[];
  /** Joins two phrases in a heading. */
  pair: string;
}

/** Headline patterns per language. {A} {B} {C}: key phrases; {G}: the interviewee; {N}: a count. */
const PATTERNS: Record<string, Patterns> = {
  en: {
    normal: [
      "{A}: {B} and {C}",
      "{A} and {B}",
      "From {A} to {B}",
      "{A} in focus: {B}",
      "{B} and the future of {A}",
      "A closer look at {A} and {B}",
      "Rethinking {A}",
      "{A}, {B} and {C}",
    ],
    question: [
      "What's next for {A}?",
      "{A}: what role for {B}?",
      "Is it time to rethink {A}?",
      "What can {A} teach us about {B}?",
      "Where next for {A} and {B}?",
      "{A} or {B}?",
    ],
    // Headline style with a noun phrase in each slot: no bare "{A}" or "On {A}" fragments.
    short: ["{A} and {B}", "{A}: {B}", "{A} in focus", "Rethinking {A}"],
    list: [
      "{N} things to know about {A}",
      "{N} takeaways on {A} and {B}",
      "{A}: {N} key points",
      "{N} lessons from {A}",
    ],
    interview: ["{G} on {A}", "{G} on {A} and {B}", "In conversation with {G}: {A}"],
    meeting: ["Meeting notes: {A} and {B}", "{A}, {B}, {C}: decisions and next steps"],
    formal: ["{A} and {B}: an overview", "{A}: a review of {B}", "The state of {A}", "{A}, {B} and {C}: an assessment"],
    casual: [
      "Let's talk about {A}",
      "{A}? Here's what you need to know",
      "Everything you wanted to know about {A}",
      "All about {A} and {B}",
    ],
    pair: "{A} and {B}",
  },
  de: {
    normal: [
      "{A}: {B} und {C}",
      "{A} und {B}",
      "Von {A} bis {B}",
      "{A} im Fokus: {B}",
      "{B} und die Zukunft von {A}",
      "Ein genauer Blick auf {A} und {B}",
      "Alles über {A}",
      "{A} neu gedacht",
      "{A}, {B} und {C}",
    ],
    question: [
      "Was bedeutet {A} für {B}?",
      "Wie geht es weiter mit {A}?",
      "Ist {A} die Lösung für {B}?",
      "Welche Rolle spielt {B} für {A}?",
      "{A} oder {B}?",
    ],
    short: ["{A} und {B}", "{A}: {B}", "{A} im Fokus", "{A} neu gedacht"],
    list: ["{N} Dinge, die man über {A} wissen sollte", "{N} Erkenntnisse zu {A} und {B}", "{A}: {N} wichtige Punkte"],
    interview: ["{G} über {A}", "{G} über {A} und {B}", "Im Gespräch mit {G}: {A}"],
    meeting: ["Protokoll: {A} und {B}", "{A}, {B}, {C}: Ergebnisse und nächste Schritte"],
    formal: ["{A} und {B}: ein Überblick", "{A}: eine Bestandsaufnahme", "{A}, {B} und {C}: eine Einordnung"],
    casual: ["Was Sie über {A} wissen sollten", "Darum geht's: {A} und {B}", "{A}? Das steckt dahinter"],
    pair: "{A} und {B}",
  },
  ja: {
    normal: [
      "{A}と{B}",
      "{A}：{B}と{C}",
      "{A}から考える{B}",
      "いま知りたい{A}",
      "{A}と{B}のこれから",
      "{A}の現在地",
      "{A}、{B}、{C}",
    ],
    question: ["{A}は{B}をどう変えるのか", "なぜ今、{A}なのか", "{A}の課題とは何か", "{A}はこれからどうなるのか"],
    short: ["{A}", "{A}と{B}", "{A}の話", "{A}・{B}"],
    list: ["{A}について知っておきたい{N}つのこと", "{A}：{N}つのポイント", "{A}と{B}、{N}つの要点"],
    interview: ["{G}さんに聞く{A}", "{G}さんが語る{A}と{B}", "インタビュー：{G}さんと{A}"],
    meeting: ["議事録：{A}と{B}", "{A}・{B}に関する決定事項"],
    formal: ["{A}に関する考察", "{A}と{B}の現状と課題", "{A}をめぐる論点"],
    casual: ["ざっくりわかる{A}", "{A}って実際どうなの？", "{A}と{B}の話をしよう"],
    pair: "{A}と{B}",
  },
  zh: {
    normal: ["{A}与{B}", "{A}：{B}与{C}", "从{A}看{B}", "聚焦{A}", "{A}的现在与未来", "读懂{A}", "{A}、{B}与{C}"],
    question: ["{A}将如何改变{B}？", "为什么{A}如此重要？", "{A}的未来在哪里？", "{A}能解决{B}吗？"],
    short: ["{A}", "{A}与{B}", "谈{A}", "{A}、{B}"],
    list: ["关于{A}的{N}个要点", "{A}：{N}个关键问题", "{N}个角度看{A}"],
    interview: ["{G}谈{A}", "专访{G}：{A}与{B}", "对话{G}：{A}"],
    meeting: ["会议纪要：{A}与{B}", "关于{A}和{B}的决定"],
    formal: ["关于{A}与{B}的分析", "{A}的现状与展望", "{A}问题研究"],
    casual: ["一文看懂{A}", "聊聊{A}和{B}", "{A}到底怎么样？"],
    pair: "{A}与{B}",
  },
};

/** Any other language: punctuation-only patterns, no words of a language the text may not be in. */
const GENERIC: Patterns = {
  normal: ["{A}: {B}", "{A} · {B} · {C}", "{A} — {B}", "{A}", "{A}, {B}"],
  question: ["{A}?", "{A} — {B}?"],
  short: ["{A}", "{A} · {B}"],
  list: ["{A}: {N}", "{N} × {A}"],
  interview: ["{G}: {A}", "{G} — {A} · {B}"],
  meeting: ["{A} · {B}", "{A} · {B} · {C}"],
  formal: ["{A}: {B}", "{A} — {B} — {C}"],
  casual: ["{A}!", "{A} + {B}"],
  pair: "{A} · {B}",
};

/** The headline patterns of a language (punctuation-only ones for a language without its own). */
export function patternsFor(lang: string): Patterns {
  return PATTERNS[lang] ?? GENERIC;
}

/** Every fixed word of the language's headline patterns (the only words a title may add to the text's). */
export function patternWords(lang: string): Set<string> {
  const p = patternsFor(lang);
  const all = [...Object.values(p)].flat().join(" \n ");
  return wordSet(all.replace(/\{[ABCGN]\}/g, " "), lang);
}

/** The content words of a title, folded, as a set: two titles with the same set say the same thing. */
export function wordSet(title: string, lang: string): Set<string> {
  const words = tokenize(title, lang)
    .filter((t) => t.content && !/^\d+$/u.test(t.norm))
    .map((t) => foldWord(t.norm, lang));
  // Spaceless scripts: ICU may cut a phrase differently inside a title; compare by characters.
  if (spacingOf(lang) === "none") return new Set([...title].filter((c) => /[\p{L}\p{N}]/u.test(c)));
  return new Set(words);
}
