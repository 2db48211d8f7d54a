/**
 * One sentence made presentable: punctuated and capitalised, names addressed set off by commas, clear
 * positional fillers dropped, and classified (question, prompt, cue, whom it addresses).
 */

import { normWord } from "@kikitori/shared/language";
import { NAME_GOVERNORS, nameEndingAt, nameStartingAt, type Person } from "./names-in-text.ts";
import type { Role } from "./port.ts";
import {
  EN_AMBIGUOUS_NAMES,
  EN_COMMA_AFTER,
  EN_COMMA_NEXT_BLOCK,
  EN_INTERVIEWEE_CUES,
  EN_INTERVIEWER_CLOSING,
  EN_INTERVIEWER_CUES,
  EN_MONTHS_DAYS,
  EN_PROMPT_START,
  rulesFor,
  type TextLang,
} from "./rules.ts";
import { isQuestionWords, MOVE_BACK } from "./segment.ts";
import { hasComma, renderTokens, type Token } from "./tokens.ts";

export interface Sentence {
  text: string;
  question: boolean;
  /** An interviewer's request that is not a question ("Tell me about ..."). */
  prompt: boolean;
  /** Phrases only one side says: an opening ("welcome to the show"), a closing thank-you, or the guest's thanks. */
  cue: "interviewer" | "closing" | "interviewee" | null;
  /** The person this sentence addresses by name ("Thank you, Sarah."): the other one says it. */
  addressed: Role | null;
  words: number;
  /** Offset of the sentence's first word in the text it was read from (space-separated languages). */
  at?: number;
  /**
   * The question mark is the rules' guess (the transcript had no ending there), not the speaker's
   * punctuation: only the interviewer's sentences keep such a guess (clean verbatim).
   */
  guessedQuestion?: boolean;
}

export interface FinishOptions {
  lang: TextLang;
  /** Lower-case name word → its spelling as given ("john" → "John"). */
  names: Map<string, string>;
  people: Person[];
  /** UI language, for locale-aware upper-casing (Turkish dotted i). */
  locale?: string;
}

const I_FORMS = /^i(?:'m|'ve|'ll|'d)?$/;
const LEAD_VOCATIVE_NEXT = new Set(
  "thanks thank how what why when where who do did can could would is are so tell let's please welcome you i it's that's great".split(
    " ",
  ),
);

/** Punctuates and capitalises one sentence of tokens (mutates them) and classifies it. */
export function finishSentence(tokens: Token[], opts: FinishOptions): Sentence | null {
  const { lang, people } = opts;
  let toks = tokens.filter((t) => t.word || /[?!.…]/.test(t.post));
  // Leading bare punctuation.
  while (toks.length && !toks[0].word) toks = toks.slice(1);
  if (!toks.length) return null;
  if (lang === "en") toks = dropPositionalFillers(toks);
  if (!toks.length) return null;
  const words = toks.map((t) => normWord(t.word)).filter(Boolean);
  if (!words.length) return null;
  const lastTok = toks[toks.length - 1];
  let ender = /[.?!…؟।]+/.exec(lastTok.post)?.[0] ?? "";
  let guessedQuestion = false;
  if (!ender) {
    const question = isQuestionWords(words, lang, people);
    guessedQuestion = question;
    ender = question ? "?" : lang !== "other" ? "." : defaultEnder(lastTok.word);
    const closing = /["'”’)\]]+$/.exec(lastTok.post)?.[0] ?? "";
    lastTok.post = lastTok.post.replace(/["'”’)\]]+$/, "").replace(/[,;:，、\-–—]+$/, "") + ender + closing;
    if (question && lang === "es" && !toks[0].pre.includes("¿")) toks[0].pre = "¿" + toks[0].pre;
  }
  // Stray dashes of cut words.
  for (const t of toks) if (t.word && /^-+$/.test(t.post)) t.post = "";
  const addressed = lang === "other" ? null : markVocatives(toks, words, people, lang);
  if (lang === "en") addDiscourseCommas(toks);
  capitalise(toks, opts);
  const text = renderTokens(toks)
    .replace(/\s+([,.;:?!…])/g, "$1")
    .replace(/([,;:])\1+/g, "$1");
  const lower = words.join(" ");
  const question = /[?؟]["'”’)\]]*$/.test(text);
  let cue: Sentence["cue"] = null;
  let prompt = false;
  if (lang === "en") {
    prompt = !question && EN_PROMPT_START.test(lower);
    if (EN_INTERVIEWEE_CUES.test(lower)) cue = "interviewee";
    else if (EN_INTERVIEWER_CLOSING.test(lower)) cue = "closing";
    else if (EN_INTERVIEWER_CUES.test(lower)) cue = "interviewer";
  }
  return { text, question, prompt, cue, addressed, words: words.length, at: toks[0].at, guessedQuestion };
}

/** Commas around a name used to address someone ("Thank you, Sarah." / "David, thanks ..."); returns whom. */
function markVocatives(toks: Token[], words: string[], people: Person[], lang: TextLang): Role | null {
  if (people.length === 0 || words.length < 2) return null;
  const idx = toks.map((t, i) => (t.word ? i : -1)).filter((i) => i >= 0);
  const end = nameEndingAt(words, words.length, people);
  if (end.len > 0 && words.length - end.len >= 2) {
    const before = toks[idx[words.length - end.len - 1]];
    if (!NAME_GOVERNORS.has(words[words.length - end.len - 1]) && before && !before.post) {
      before.post = ",";
      return end.role;
    }
    if (before && hasComma(before)) return end.role;
  }
  const start = nameStartingAt(words, 0, people);
  const after = words[start.len];
  const rules = rulesFor(lang);
  if (
    start.len > 0 &&
    words.length - start.len >= 2 &&
    (LEAD_VOCATIVE_NEXT.has(after) || rules.questionWords.has(after) || rules.auxVerbs.has(after))
  ) {
    const last = toks[idx[start.len - 1]];
    if (!last.post) last.post = ",";
    return start.role;
  }
  return null;
}

/** Sentence-initial "I mean" and sentence-final "you know" are fillers in clear cases. */
function dropPositionalFillers(toks: Token[]): Token[] {
  const w = toks.map((t) => normWord(t.word));
  let out = toks;
  let start = 0;
  while (start < w.length - 1 && MOVE_BACK.has(w[start]) && !toks[start].post) start++;
  if (w[start] === "i" && w[start + 1] === "mean" && !toks[start].post) {
    const after = w[start + 2];
    const restLen = w.length - start - 2;
    const comma = hasComma(toks[start + 1]);
    if (comma ? restLen >= 1 : restLen >= 3 && !/^(it|to|what|by|you|him|her|them|this|that|well)$/.test(after ?? "")) {
      out = [...toks.slice(0, start), ...toks.slice(start + 2)];
    }
  }
  const n = out.length;
  if (n >= 6) {
    const a = out[n - 2];
    const b = out[n - 1];
    const before = normWord(out[n - 3].word);
    if (
      normWord(a.word) === "you" &&
      normWord(b.word) === "know" &&
      !a.post &&
      !/^(do|did|don't|didn't|if|as|what|how|to|let|i|we|they|would|could|should|will|can|that)$/.test(before) &&
      !/[?]/.test(b.post)
    ) {
      const p = out[n - 3];
      const ender = /[.!…]+/.exec(b.post)?.[0] ?? "";
      out = [...out.slice(0, n - 3), { ...p, post: p.post.replace(/[,;:]+$/, "") + ender }];
    }
  }
  return out;
}

/** "Yes, I did." "Well, I think ..." "Hello, hi, is this ...?" */
function addDiscourseCommas(toks: Token[]): void {
  for (let k = 0; k < 2; k++) {
    const first = toks[k];
    const second = toks[k + 1];
    if (!first || !second || first.post || !second.word) return;
    const w = normWord(first.word);
    if (!EN_COMMA_AFTER.has(w)) return;
    const n = normWord(second.word);
    if (EN_COMMA_NEXT_BLOCK[w]?.has(n)) return;
    if (k === 1 && !/^(hi|hello|hey|yes|yeah|no|okay|ok|oh|well|wow)$/.test(w)) return;
    if ((w === "okay" || w === "ok" || w === "alright") && /^(so|then|now)$/.test(n) && toks.length === 2) return;
    if ((w === "well" || w === "sure" || w === "also") && toks.length < 3) return;
    first.post = ",";
  }
}

/** Sentence end for a language without rules: "." after Latin, Cyrillic, Greek or Arabic script; "।" after Devanagari. */
function defaultEnder(word: string): string {
  const last = word.at(-1) ?? "";
  if (/\p{Script=Devanagari}/u.test(last)) return "।";
  if (/[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{N}]/u.test(last)) return ".";
  return "";
}

function upperFirst(s: string, locale?: string): string {
  const loc = locale === "tr" || locale === "az" ? locale : undefined;
  return s.replace(/^(\P{L}*)(\p{L})/u, (_, a: string, b: string) => {
    const upper = loc ? b.toLocaleUpperCase(loc) : b.toUpperCase();
    // "ß" → "SS" would change the word: only one-to-one case mappings.
    return a + (upper.length === b.length ? upper : b);
  });
}

function capitalise(toks: Token[], opts: FinishOptions): void {
  const { lang, names, locale } = opts;
  let atStart = true;
  for (const t of toks) {
    if (!t.word) continue;
    const w = normWord(t.word);
    if (lang === "en") {
      if (I_FORMS.test(w)) t.word = "I" + t.word.slice(1);
      else if (EN_MONTHS_DAYS.has(w) && t.word === w) t.word = EN_MONTHS_DAYS.get(w)!;
    }
    const name = names.get(w);
    if (name && t.word === w && (atStart || lang !== "en" || !EN_AMBIGUOUS_NAMES.has(w))) t.word = name;
    if (atStart) t.word = upperFirst(t.word, locale);
    atStart = false;
  }
}
