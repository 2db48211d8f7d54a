/** Removing hesitations, stutters and accidental repetitions. Deletes words; never adds any. */

import { normWord } from "@kikitori/shared/language";
import { rulesFor, SOUND_FILLER, type TextLang } from "./rules.ts";
import { hasComma, hasEnder, type Token } from "./tokens.ts";

/**
 * Drops token i, keeping its punctuation where it matters: a sentence end moves to the previous
 * word, opening quotes move to the next one; a comma pair around a filler collapses (", um," → "").
 */
function dropToken(tokens: Token[], i: number): void {
  const t = tokens[i];
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  const ender = /[.?!…？！。؟।]+["'”’)\]]*/.exec(t.post)?.[0];
  if (ender && prev?.word) {
    if (!hasEnder(prev)) prev.post = prev.post.replace(/[,;:，、-]+$/, "") + ender;
  } else if (prev && hasComma(t) && hasComma(prev) && !hasEnder(prev)) {
    prev.post = prev.post.replace(/[,;:，、]+$/, "");
  }
  if (t.pre && next) next.pre = t.pre + next.pre;
  tokens.splice(i, 1);
}

const isSentenceStart = (tokens: Token[], i: number) => i === 0 || hasEnder(tokens[i - 1]);

/** Removes hesitation fillers (single tokens and a few clear phrases) in place. */
export function removeFillers(tokens: Token[], lang: TextLang): Token[] {
  const rules = rulesFor(lang);
  for (let i = 0; i < tokens.length; i++) {
    const w = normWord(tokens[i].word);
    if (!w) continue;
    if (rules.fillers.has(w) || SOUND_FILLER.test(w)) {
      if (lang !== "en" && (w === "er" || w === "ah")) continue;
      dropToken(tokens, i);
      i--;
      continue;
    }
    if (rules.commaFillers.has(w) && hasComma(tokens[i]) && (isSentenceStart(tokens, i) || hasComma(tokens[i - 1]))) {
      dropToken(tokens, i);
      i--;
      continue;
    }
    if (lang === "en" && w === "you" && normWord(tokens[i + 1]?.word ?? "") === "know") {
      if (isYouKnowFiller(tokens, i)) {
        // "you know what i mean" as a whole
        const tail = tokens
          .slice(i + 2, i + 5)
          .map((t) => normWord(t.word))
          .join(" ");
        const extra = tail === "what i mean" && !hasComma(tokens[i + 1]) ? 3 : 0;
        // A tag "..., you know?" made the sentence look like a question: it is a statement.
        const last = tokens[i + 1 + extra];
        if (last) last.post = last.post.replace(/\?/g, ".");
        for (let k = 0; k < 2 + extra; k++) dropToken(tokens, i);
        i--;
      }
    }
  }
  return tokens;
}

const YOU_KNOW_PREV_BLOCK = new Set(
  "do did don't didn't if as what how to let would could should will can i we they and".split(" "),
);
const YOU_KNOW_NEXT_FILLER = new Set("like um uh so and but why i we it's that's there's they".split(" "));

function isYouKnowFiller(tokens: Token[], i: number): boolean {
  const you = tokens[i];
  const know = tokens[i + 1];
  const prev = tokens[i - 1];
  const next = tokens[i + 2];
  if (you.post) return false; // "you, know" is not the phrase
  const prevWord = normWord(prev?.word ?? "");
  if (prev && !hasEnder(prev) && !hasComma(prev) && YOU_KNOW_PREV_BLOCK.has(prevWord)) return false;
  const nextWord = normWord(next?.word ?? "");
  // Set off by commas, or at a sentence's edge with a comma.
  if (hasComma(know) && (!prev || hasComma(prev) || hasEnder(prev))) return true;
  if (prev && hasComma(prev) && (hasEnder(know) || !next)) return true;
  if (
    nextWord === "what" &&
    normWord(tokens[i + 3]?.word ?? "") === "i" &&
    normWord(tokens[i + 4]?.word ?? "") === "mean"
  )
    return true;
  // Unpunctuated: followed by another filler or a connector, after a content word.
  if (!know.post && next && YOU_KNOW_NEXT_FILLER.has(nextWord) && prev && !hasEnder(prev)) return true;
  return false;
}

const AMBIGUOUS_DOUBLES = new Set(["it", "you", "her"]);
const CLAUSE_OPENERS = new Set(
  "and but so because that when if then well where while since as or um uh yeah yes no okay like think know mean guess".split(
    " ",
  ),
);

const FRAGMENT = /^(\p{L}{1,3})((?:-\p{L}{1,3})*)-(\p{L}+)$/u;

/** Stutters ("w- we", "w-w-we", "I-I-I") and repeated words or short phrases ("the the", "in the in the"). */
export function removeRepeats(tokens: Token[], lang: TextLang): Token[] {
  const rules = rulesFor(lang);
  const dedupeWords = lang === "en" || lang === "de" || lang === "fr" || lang === "es";
  // Stutter inside one token.
  for (const t of tokens) {
    const m = FRAGMENT.exec(t.word);
    if (!m) continue;
    const parts = t.word.split("-");
    const first = parts[0].toLowerCase();
    const last = parts.at(-1)!;
    const allSame = parts.every((p) => p.toLowerCase() === first);
    if (allSame && (parts.length >= 3 || first.length === 1)) t.word = last;
    else if (
      !allSame &&
      last.toLowerCase().startsWith(first) &&
      last.length > first.length &&
      parts.slice(0, -1).every((p) => last.toLowerCase().startsWith(p.toLowerCase()))
    )
      t.word = last;
  }
  // Cut words: "w- we", "go- going", "th- the"; a short cut word before something else is a false start.
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (!t.word || !/^-+$/.test(t.post) || t.pre) continue;
    const next = tokens[i + 1];
    const w = t.word.toLowerCase();
    const nw = next.word.toLowerCase();
    const nextIsConj = /^(and|or|und|oder|et|ou|y|o)$/.test(nw);
    if ((nw.startsWith(w) && nw !== w) || (w.length <= 3 && !nextIsConj && /^\p{L}+$/u.test(w)) || nw === w) {
      tokens.splice(i, 1);
      i--;
    }
  }
  if (!dedupeWords) return tokens;
  let changed = true;
  while (changed) {
    changed = false;
    for (let n = 3; n >= 1; n--) {
      for (let i = 0; i + 2 * n <= tokens.length; i++) {
        let same = true;
        for (let k = 0; k < n; k++) {
          const a = tokens[i + k];
          const b = tokens[i + n + k];
          if (!a.word || normWord(a.word) !== normWord(b.word)) {
            same = false;
            break;
          }
          // Inside the first copy only plain words; its last word may carry a comma ("I, I think").
          if (k < n - 1 ? a.post !== "" : a.post !== "" && !/^[,，、]$/.test(a.post)) {
            same = false;
            break;
          }
          if (k > 0 && a.pre) {
            same = false;
            break;
          }
        }
        if (!same) continue;
        if (n === 1 && rules.repeatOk.has(normWord(tokens[i].word))) continue;
        // "love it it was": an object then a subject; only a clause start makes it a stutter ("and it it was").
        if (
          n === 1 &&
          lang === "en" &&
          AMBIGUOUS_DOUBLES.has(normWord(tokens[i].word)) &&
          !tokens[i].post &&
          i > 0 &&
          !hasEnder(tokens[i - 1]) &&
          !hasComma(tokens[i - 1]) &&
          !CLAUSE_OPENERS.has(normWord(tokens[i - 1].word))
        )
          continue;
        if (n === 1 && /^\p{N}+$/u.test(tokens[i].word)) continue;
        const pre = tokens[i].pre;
        tokens.splice(i, n);
        if (pre) tokens[i].pre = pre + tokens[i].pre;
        changed = true;
        i--;
      }
    }
  }
  return tokens;
}

/* ---- Japanese and Chinese (no spaces between words): string rules ---- */

const JA_FILLERS_ALWAYS =
  /(?:えー+っ?と|えっと|ええと|えー+|あー+(?![いっ])|うーん+|うー+ん|んー+|あのー+|そのー+|まぁ|まー+)[、，,\s]*/g;
const JA_FILLERS_CLAUSE = /(^|[、。！？!?，\s])(?:あの|その|なんか|まあ)(?:[、，,]\s*|\s+)/g;
const JA_MAA_INITIAL = /(^|[。！？!?\s])まあ(?!まあ)/g;
const ZH_FILLERS = /[嗯呃]+[，,、\s]*/g;
const ZH_NAGE = /那个(?=[，,、\s]|那个)[，,、\s]*/g;
const ZH_JIUSHISHUO = /就是说[，,、\s]+/g;
const ZH_A_INITIAL = /(^|[，。？！\s])啊[，,\s]+/g;

export function cleanSpaceless(text: string, lang: "ja" | "zh"): string {
  let s = text;
  if (lang === "ja") {
    for (let k = 0; k < 2; k++) {
      s = s.replace(JA_FILLERS_ALWAYS, "");
      s = s.replace(JA_FILLERS_CLAUSE, "$1");
      s = s.replace(JA_MAA_INITIAL, "$1");
    }
  } else {
    s = s.replace(ZH_FILLERS, "").replace(ZH_NAGE, "").replace(ZH_JIUSHISHUO, "").replace(ZH_A_INITIAL, "$1");
  }
  // "私、私は" / "我 我们": a chunk repeated across a pause.
  s = s
    .replace(/(?<!\p{Script=Han})(\p{Script=Han}{1,4})[、，,\s]+(?=\1)/gu, "")
    .replace(/(?<!\p{Script=Hiragana})(\p{Script=Hiragana}{2,6})[、，,\s]+(?=\1)/gu, "")
    .replace(/(?<!\p{Script=Katakana})(\p{Script=Katakana}{2,8})[、，,\s]+(?=\1)/gu, "");
  return s;
}
