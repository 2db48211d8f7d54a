/**
 * Tone, by rules only: formal/serious spell contractions and slang out, casual contracts the
 * common full forms, serious drops exclamation marks, pop allows one for short enthusiastic
 * answers. These rewrites are the only words the offline engine writes that are not in the
 * transcript verbatim; EXPANSIONS lists them (the "no invented words" tests allow exactly these).
 */

import type { CorrectionTone, Role } from "./port.ts";
import type { TextLang } from "./rules.ts";

/** Contraction or slang (lower-case, plain apostrophe) → full form. */
export const EXPANSIONS: Readonly<Record<string, string>> = {
  "don't": "do not",
  "doesn't": "does not",
  "didn't": "did not",
  "can't": "cannot",
  "won't": "will not",
  "isn't": "is not",
  "aren't": "are not",
  "wasn't": "was not",
  "weren't": "were not",
  "haven't": "have not",
  "hasn't": "has not",
  "hadn't": "had not",
  "couldn't": "could not",
  "wouldn't": "would not",
  "shouldn't": "should not",
  "mustn't": "must not",
  "needn't": "need not",
  "i'm": "I am",
  "you're": "you are",
  "we're": "we are",
  "they're": "they are",
  "i've": "I have",
  "you've": "you have",
  "we've": "we have",
  "they've": "they have",
  "i'll": "I will",
  "you'll": "you will",
  "we'll": "we will",
  "they'll": "they will",
  "he'll": "he will",
  "she'll": "she will",
  "it'll": "it will",
  "that'll": "that will",
  "i'd": "I would",
  "you'd": "you would",
  "we'd": "we would",
  "they'd": "they would",
  "he'd": "he would",
  "she'd": "she would",
  "it's": "it is",
  "that's": "that is",
  "there's": "there is",
  "what's": "what is",
  "here's": "here is",
  "who's": "who is",
  "where's": "where is",
  "how's": "how is",
  "he's": "he is",
  "she's": "she is",
  "let's": "let us",
  gonna: "going to",
  wanna: "want to",
  gotta: "got to",
  yeah: "yes",
  yep: "yes",
  yup: "yes",
  nope: "no",
  "'cause": "because",
  cuz: "because",
};

/** "'s" and "'d" before these mean has/had, not is/would ("it's been", "I'd never seen"). */
const HAS_AFTER = /^(been|got|gotten|had)$/i;
const HAD_AFTER = /^(been|had|already|gotten|better)$/i;

/** Full form → contraction, applied by the casual and pop tones (only where the result is natural). */
const CONTRACTIONS: ReadonlyArray<[RegExp, string]> = [
  [/\b(do|does|did|is|are|was|were|have|has|had|could|would|should) not\b/gi, "$1n't"],
  [/\bcannot\b/gi, "can't"],
  [/\bwill not\b/gi, "won't"],
];
/** Pronoun + be/will: contracted only when another word follows in the same clause ("Yes, I am." stays). */
const PRONOUN_CONTRACTIONS: ReadonlyArray<[RegExp, string]> = [
  [/\b(I) am\b(?= [\p{L}\p{N}])/gu, "$1'm"],
  [/\b(you|we|they) are\b(?= [\p{L}\p{N}])/giu, "$1're"],
  [/\b(it|that|there|what) is\b(?= [\p{L}\p{N}])/giu, "$1's"],
  [/\b(I|you|we|they) will\b(?= [\p{L}\p{N}])/giu, "$1'll"],
];

function keepCase(original: string, replacement: string): string {
  if (/^\p{Lu}/u.test(original) && !/^I\b/.test(replacement))
    return replacement[0].toUpperCase() + replacement.slice(1);
  return replacement;
}

/** Spells out contractions and slang in an English sentence. */
export function expandContractions(sentence: string): string {
  return sentence.replace(
    /(?<![\p{L}'’])('cause|\p{L}+(?:['’]\p{L}+)?)(?![\p{L}'’])(?=(?:\s+(\p{L}+))?)/gu,
    (whole: string, word: string, nextWord: string | undefined) => {
      const key = word.toLowerCase().replace(/’/g, "'");
      let full = EXPANSIONS[key];
      if (!full) return whole;
      // "Don't you think?" has no natural full form in the same word order: left as is.
      if (nextWord && /n't$/.test(key) && /^(you|we|they|he|she|it|i|there|that)$/i.test(nextWord)) return whole;
      if (nextWord && /'s$/.test(key) && HAS_AFTER.test(nextWord)) full = full.replace(/ is$/, " has");
      if (nextWord && /'d$/.test(key) && HAD_AFTER.test(nextWord)) full = full.replace(/ would$/, " had");
      return keepCase(word, full);
    },
  );
}

export function contract(sentence: string): string {
  let s = sentence;
  for (const [re, rep] of CONTRACTIONS) {
    s = s.replace(re, (m: string, ...groups: unknown[]) => {
      const g1 = typeof groups[0] === "string" ? groups[0] : "";
      const out = rep.replace("$1", g1);
      if (/^can't|^won't/.test(out) && /^\p{Lu}/u.test(m)) return out[0].toUpperCase() + out.slice(1);
      return out;
    });
  }
  for (const [re, rep] of PRONOUN_CONTRACTIONS) s = s.replace(re, rep);
  return s.replace(/(^|[.!?]\s+)Let us\b/g, "$1Let's");
}

const ENTHUSIASM =
  /\b(great|amazing|awesome|fantastic|wonderful|incredible|wow|love|loved|excited|thrilled|brilliant)\b/i;
const NEGATION = /\b(not|never|no|n't|don't|didn't|wasn't|isn't|nothing|hardly)\b|n't\b/i;

/** Applies the tone to one finished sentence of the given speaker. */
export function applyTone(sentence: string, tone: CorrectionTone | null, lang: TextLang, role: Role): string {
  if (!tone) return sentence;
  let s = sentence;
  if (lang === "en") {
    if (tone === "formal" || tone === "serious") s = expandContractions(s);
    else s = contract(s);
  }
  if (tone === "serious")
    s = s
      .replace(/!+(?=["'”’)\]]*$)/, ".")
      .replace(/！+$/, "。")
      .replace(/!+/g, "");
  if (tone === "pop" && lang === "en" && role === "interviewee") {
    const words = s.split(/\s+/).length;
    if (words <= 8 && /\.$/.test(s) && !/\.\.\.$/.test(s) && ENTHUSIASM.test(s) && !NEGATION.test(s))
      s = s.replace(/\.$/, "!");
  }
  return s;
}
