/**
 * Key phrases of a text, in the manner of RAKE (Rose et al., 2010): candidates are runs of adjacent
 * content words, broken by function words, punctuation and line ends; a candidate scores by how often
 * it occurs and how frequent its words are in the whole text. Works on ICU word segments, so
 * compounds of Japanese or Chinese (音声|認識|技術 → 音声認識技術) come out as well as English ones.
 */
import { isSpacelessLanguage, tokenize, type WordToken } from "@kikitori/shared/language";
import { findSpeakerLabels } from "./labels.ts";

export interface KeyPhrase {
  /** Normalised words joined (the identity of the phrase). */
  key: string;
  words: string[];
  /** The form most often written in the text. */
  surface: string;
  count: number;
  firstAt: number;
  score: number;
}

export interface KeyPhraseOptions {
  /** Normalised words the user asked to focus on: phrases holding one score higher. */
  focus?: ReadonlySet<string>;
  /**
   * The whole document when `text` is a part of it: speaker labels and attendee names are learnt
   * from the whole (a block may hold a label only once).
   */
  context?: string;
  /** Word frequencies of the whole document (from documentWordFreq), when already counted. */
  wordFreq?: ReadonlyMap<string, number>;
}

const LABEL_AT_LINE_START = /^([^\n:：]{1,40}?)[:：][ \t\u3000]*/gmu;

const MAX_WORDS_SPACED = 3;
const MAX_TOKENS_SPACELESS = 4;
const MAX_CHARS = 40;

/** Lines that list people ("Attendees:", "出席者：", "Teilnehmende:", "参会人员：") in minutes. */
const ATTENDEE_LINE =
  /^[ \t]*(?:attendees|participants|present|teilnehmende|teilnehmer(?:innen)?|anwesend|出席者|参加者|参会人员|出席人员|与会人员|记录人|protokoll|記録)[^\n:：]{0,12}[:：](.*)$/gimu;

/** Whether a token may be part of a key phrase (stricter than "content": no verbs where they can be told). */
function phraseToken(t: WordToken, lang: string): boolean {
  if (!t.content) return false;
  // Kanji and kana numerals on their own are amounts, not topics.
  if ((lang === "ja" || lang === "zh") && /^[一二三四五六七八九十百千万億〇零两]+$/u.test(t.surface)) return false;
  // Japanese words with kana endings are verbs and adjectives (役立ち, 下がる): topics are kanji/katakana.
  if (lang === "ja") return !/\p{Script=Hiragana}/u.test(t.surface);
  // Chinese one-character words are mostly verbs and measure words (卖, 听, 本).
  // Chinese one-character words are mostly verbs and measure words (卖, 听, 本); ICU also glues
  // particles to words now and then (人的, 过的).
  if (lang === "zh") {
    return [...t.surface].length >= 2 && !/[的了着过吗呢吧是]$/u.test(t.surface) && !/^[的了在是和与]/u.test(t.surface);
  }
  return true;
}

/** English plural folding for the phrase identity ("trees" and "tree" are one topic). */
export function foldWord(norm: string, lang: string): string {
  if (lang !== "en" || norm.length <= 3) return norm;
  if (norm.endsWith("ies") && norm.length > 4) return `${norm.slice(0, -3)}y`;
  if (norm.endsWith("s") && !norm.endsWith("ss") && !norm.endsWith("us") && !norm.endsWith("is"))
    return norm.slice(0, -1);
  return norm;
}

function countWords(tokens: readonly WordToken[], lang: string): Map<string, number> {
  const freq = new Map<string, number>();
  for (const t of tokens) {
    if (!t.content) continue;
    const w = foldWord(t.norm, lang);
    freq.set(w, (freq.get(w) ?? 0) + 1);
  }
  return freq;
}

/** How often each content word occurs in the document (the weights of keyPhrases). */
export function documentWordFreq(text: string, lang: string): Map<string, number> {
  return countWords(tokenize(text, lang), lang);
}

/** All candidate phrases of the text, best first (overlapping candidates included). */
export function keyPhrases(text: string, lang: string, opts: KeyPhraseOptions = {}): KeyPhrase[] {
  const spaceless = isSpacelessLanguage(lang);
  const context = opts.context ?? text;
  const labelNames = new Set([...findSpeakerLabels(context).values()].map((l) => l.name));
  const skipRanges: Array<readonly [number, number]> = [];
  for (const m of text.matchAll(LABEL_AT_LINE_START)) {
    if (labelNames.has(m[1].trim())) skipRanges.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  }
  // Names of the people at a meeting would otherwise top every list of minutes.
  const names = new Set<string>();
  for (const m of context.matchAll(ATTENDEE_LINE)) {
    const list = m[1].replace(/[(（][^)）]*[)）]/gu, " ");
    for (const t of tokenize(list, lang)) if (t.content) names.add(t.norm);
  }
  // Speakers' names likewise (the label lines are skipped, the names also appear in the text).
  for (const name of labelNames) for (const t of tokenize(name, lang)) if (t.content) names.add(t.norm);
  const inSkip = (pos: number) => skipRanges.some(([a, b]) => pos >= a && pos < b);
  const tokens = tokenize(text, lang).filter((t) => !inSkip(t.start));

  // Word weights come from the whole document, so a block's phrases rank by what matters overall.
  const wordFreq = opts.wordFreq ?? countWords(context === text ? tokens : tokenize(context, lang), lang);

  const candidates = new Map<
    string,
    { words: string[]; count: number; firstAt: number; surfaces: Map<string, number> }
  >();
  const add = (r: WordToken[]) => {
    const surface = text.slice(r[0].start, r[r.length - 1].end);
    const chars = [...surface].length;
    if (chars < (spaceless ? 2 : 3) || chars > MAX_CHARS) return;
    if (/^[\p{N}.,:]+$/u.test(surface)) return;
    const words = r.map((t) => foldWord(t.norm, lang));
    const key = words.join(spaceless ? "" : " ");
    let c = candidates.get(key);
    if (!c) {
      c = { words, count: 0, firstAt: r[0].start, surfaces: new Map() };
      candidates.set(key, c);
    }
    c.count++;
    c.surfaces.set(surface, (c.surfaces.get(surface) ?? 0) + 1);
  };

  const maxLen = spaceless ? MAX_TOKENS_SPACELESS : MAX_WORDS_SPACED;
  let run: WordToken[] = [];
  const flush = () => {
    // German: a phrase ends in a noun (capitalised), so trailing lower-case words (verbs) are dropped.
    if (lang === "de") while (run.length && !/^\p{Lu}/u.test(run[run.length - 1].surface)) run.pop();
    // Every n-gram of the run: "coral reef restoration" also counts as "coral reef" and "reef".
    for (let i = 0; i < run.length; i++) {
      for (let n = 1; n <= maxLen && i + n <= run.length; n++) {
        const gram = run.slice(i, i + n);
        if (lang === "de" && !/^\p{Lu}/u.test(gram[gram.length - 1].surface)) continue;
        add(gram);
      }
    }
    run = [];
  };
  for (const t of tokens) {
    if (!phraseToken(t, lang) || names.has(t.norm)) {
      flush();
      continue;
    }
    const prev = run[run.length - 1];
    if (prev) {
      const gap = text.slice(prev.end, t.start);
      const joins = spaceless ? gap === "" || gap === "・" : gap === " " || gap === "-" || gap === "\u2011";
      if (!joins) flush();
    }
    run.push(t);
  }
  flush();

  const focus = [...(opts.focus ?? [])].map((f) => foldWord(f, lang));
  const out: KeyPhrase[] = [];
  for (const [key, c] of candidates) {
    let surface = "";
    let best = -1;
    for (const [s, n] of c.surfaces) {
      // Most frequent form; on a tie the lower-case one (not capitalised only because it starts a sentence).
      if (n > best || (n === best && s > surface)) {
        surface = s;
        best = n;
      }
    }
    // Frequent words weigh more; a word seen once adds little, so long one-off phrases do not win.
    const wordWeight = c.words.reduce((sum, w) => sum + Math.log(wordFreq.get(w) ?? 1) + 0.3, 0);
    let score = wordWeight * (1 + Math.log(c.count));
    // A long phrase seen once is more often a clause (with a verb) than a name for a topic.
    if (c.count === 1 && c.words.length >= 3) score *= 0.6;
    if (focus.length && focus.some((f) => c.words.includes(f) || (f.length > 1 && key.includes(f)))) score *= 3;
    out.push({ key, words: c.words, surface, count: c.count, firstAt: c.firstAt, score });
  }
  out.sort((a, b) => b.score - a.score || a.firstAt - b.firstAt);
  return out;
}

/** The best `limit` phrases, leaving out any that is part of (or contains) one already taken. */
export function topKeyPhrases(
  phrases: readonly KeyPhrase[],
  limit: number,
  exclude: Iterable<string> = [],
): KeyPhrase[] {
  const taken: KeyPhrase[] = [];
  const excluded = [...exclude];
  for (const p of phrases) {
    if (taken.length >= limit) break;
    if (excluded.some((k) => overlaps(k, p.key))) continue;
    if (taken.some((t) => overlaps(t.key, p.key))) continue;
    taken.push(p);
  }
  return taken;
}

const SPACELESS_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Whether one phrase is part of the other (whole words in spaced scripts, any substring otherwise). */
export function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  if (SPACELESS_SCRIPT.test(a) || SPACELESS_SCRIPT.test(b)) return a.includes(b) || b.includes(a);
  const pa = ` ${a} `;
  const pb = ` ${b} `;
  return pa.includes(pb) || pb.includes(pa);
}
