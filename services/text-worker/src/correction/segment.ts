/**
 * Sentence boundaries of space-separated languages: split at existing punctuation, or (for
 * unpunctuated ASR output) at heuristic boundaries. Each sentence is then made presentable in
 * finish.ts (only punctuation and letter case are added; words are only ever removed); Japanese and
 * Chinese are split in spaceless.ts; who is named or addressed is in names-in-text.ts.
 */

import { normWord } from "@kikitori/shared/language";
import { NAME_GOVERNORS, nameEndingAt, nameStartingAt, type Person } from "./names-in-text.ts";
import {
  DE_QUESTION_START,
  DE_WH_PREV_BLOCK,
  EN_AFTER_INV_BLOCK,
  EN_AUX_PREV_BLOCK,
  EN_NO_NEXT,
  EN_OKAY_PREV_BLOCK,
  EN_PROMPT_START,
  EN_SO_NEXT_BLOCK,
  EN_SO_PREV_BLOCK,
  EN_THANK_PREV_BLOCK,
  EN_WELL_NEXT,
  EN_WELL_PREV_BLOCK,
  EN_WH_NEXT,
  EN_WH_PREV_BLOCK,
  EN_YES,
  EN_YES_NO_PREV_BLOCK,
  ES_QUESTION_START,
  FR_QUESTION_START,
  RULES,
  rulesFor,
  type TextLang,
} from "./rules.ts";
import { hasEnder, type Token } from "./tokens.ts";

/* ------------------------------------------------------------------ */
/* Space-separated languages                                           */
/* ------------------------------------------------------------------ */

const ABBREVIATIONS = new Set(
  "mr mrs ms dr prof st jr sr vs etc e.g i.e u.s u.k a.m p.m no approx dept inc ltd co fig hr hrs min mins jan feb mar apr jun jul aug sep sept oct nov dec bzw usw z.b d.h ca nr mme mlle sra sr srta".split(
    " ",
  ),
);

/** Whether a new sentence starts after token i (which carries sentence-ending punctuation). */
function sentenceEndsAt(tokens: Token[], i: number, cased: boolean): boolean {
  const t = tokens[i];
  const next = tokens[i + 1];
  if (!next) return true;
  if (/[?!？！。؟।]/.test(t.post)) return true;
  if (/^\.+$/.test(t.post.replace(/["'”’)\]]+$/, "")) && ABBREVIATIONS.has(normWord(t.word))) return false;
  if (!cased) return true;
  const first = (next.pre + next.word).replace(/^[\s"'“‘(¿¡[]+/, "");
  // "..." or "." followed by a lower-case word continues the sentence (Whisper's trailing dots).
  return !/^\p{Ll}/u.test(first);
}

/** Splits tokens at sentence-ending punctuation. */
export function chunkByEnders(tokens: Token[]): Token[][] {
  const cased = tokens.some((t) => /\p{Lu}/u.test(t.word)) && tokens.some((t) => /\p{Ll}/u.test(t.word));
  const chunks: Token[][] = [];
  let cur: Token[] = [];
  tokens.forEach((t, i) => {
    cur.push(t);
    if (hasEnder(t) && sentenceEndsAt(tokens, i, cased)) {
      chunks.push(cur);
      cur = [];
    }
  });
  if (cur.length) chunks.push(cur);
  return chunks;
}

const EN = RULES.en;
/** Connectors a sentence boundary may move back over ("... and | so what did you"). */
export const MOVE_BACK = new Set("and so but okay ok well now oh alright then also".split(" "));
/** Words skipped before looking for a question's start ("so, David, how did you ..."). */
const GREETINGS = new Set("hello hi hey bonjour salut hallo hola ciao servus moin".split(" "));
const LEAD_SKIP = new Set([...MOVE_BACK, ...GREETINGS, "um", "uh"]);

function enStartsWhQuestion(w: string[], i: number): boolean {
  const a = w[i];
  const b = w[i + 1];
  const c = w[i + 2];
  const d = w[i + 3];
  if (!EN.questionWords.has(a) || !b) return false;
  if (a.endsWith("'s")) return !EN.subjects.has(b) || b === "your" || b === "that" || b === "this" || b === "it";
  if (a === "who" || a === "which" || a === "whom" || a === "whose" || a === "when" || a === "where") {
    if (EN.auxVerbs.has(b) && c && EN.subjects.has(c)) return true;
    return a === "who" && (b === "is" || b === "was") && !!c;
  }
  if (EN_WH_NEXT.has(b)) return true;
  return !EN.subjects.has(b) && !!c && EN.auxVerbs.has(c) && !!d && EN.subjects.has(d);
}

function enStartsAuxQuestion(w: string[], i: number): boolean {
  const a = w[i];
  const b = w[i + 1];
  const c = w[i + 2];
  if (!EN.auxVerbs.has(a) || !b) return false;
  if (b === "you" || b === "we" || b === "they" || b === "he" || b === "she" || b === "your") return true;
  if (b === "i") return /^(can|could|may|should|do|did|am|would)$/.test(a);
  if (b === "it" || b === "that" || b === "this" || b === "there") {
    if (!/^(is|was|are|were|does|did|do|has|will|would|could|can|isn't|wasn't|doesn't|didn't)$/.test(a)) return false;
    if (!c) return true;
    return !EN_AFTER_INV_BLOCK.has(c);
  }
  return false;
}

/** Index of the first word that is not a connector, greeting or form of address. */
function questionStart(w: string[], from: number, people: Person[], lang: TextLang = "en"): number {
  let j = from;
  const connectors = rulesFor(lang).connectors;
  for (let guard = 0; guard < 6 && j < w.length - 1; guard++) {
    if (LEAD_SKIP.has(w[j]) || connectors.has(w[j])) {
      j++;
      continue;
    }
    const name = nameStartingAt(w, j, people);
    if (name.len > 0 && j + name.len < w.length) {
      j += name.len;
      continue;
    }
    break;
  }
  return j;
}

const EN_TAGS =
  /\b(?:isn't it|wasn't it|don't you|didn't you|aren't you|don't they|doesn't it|haven't you|right|you know|isn't that right)$/;

/** Grammar-based question test for an English sentence (words lower-case, no punctuation). */
export function enIsQuestion(w: string[], people: Person[] = []): boolean {
  const j = questionStart(w, 0, people);
  if (enStartsWhQuestion(w, j) || enStartsAuxQuestion(w, j)) return true;
  // "And then what?" "Why?"
  if (j === w.length - 1 && /^(what|why|how|where|when|who|really)$/.test(w[j]) && (j > 0 || w[j] !== "really"))
    return true;
  if (w.length >= 4) {
    const m = EN_TAGS.exec(w.slice(-3).join(" "));
    // "right" / "you know" as a tag only after a "you ..." statement ("you grew up in ohio right")
    if (m && (m[0] === "right" || m[0] === "you know")) return w[j] === "you" && w.length >= 5;
    if (m) return true;
  }
  return false;
}

const SUBJECT_STARTS = new Set("i i'm we we're it's that's there's they you're he she".split(" "));
/** Inside a question, a first-person word or an answer word starts the answer ("how has it changed | we now ..."). */
const ANSWER_STARTS = new Set("i i'm i've i'd we we're we've honestly actually well sure yeah yes no oh".split(" "));
const THIRD_STARTS = new Set("it it's they he she that's there's".split(" "));
const THIRD_NEXT = new Set(
  "is was will would should could can does did has had looks seems depends really just might must takes took makes made means started became 's".split(
    " ",
  ),
);
const ANSWER_PREV_BLOCK = new Set(
  "what that if when where how why whether who which because than as think know said say mean do did can could would should will have has am and or so but about like guess hope wish before after until while since tell ask let else anything something everything nothing way thing things one place time reason idea whom whose is was are were be been being to for with of in on at by from the a an your my".split(
    " ",
  ),
);
const PRONOUN_PREV_BLOCK = new Set(
  "that and or but so because if when where how why what who which whether than as think thought know knew said say says mean hope feel felt believe guess realized realised before after until while since like said tell told wish where to for with of in on at by from about is was are were be the a an my your our their his her its this these those very really just also week weekend day days year years time times month months night morning evening afternoon moment first last next every".split(
    " ",
  ),
);
/** "since then", "back then": this "then" ends a phrase, it does not open a sentence. */
const THEN_BOUND = new Set("since back by until till even from just right and only".split(" "));
const ACK_NEXT = new Set(
  "great amazing interesting wonderful fantastic incredible fascinating awesome brilliant lovely".split(" "),
);
const SHORT_ANSWER_AUX = new Set(
  "is was are do did can have does isn't don't didn't wasn't will would am could has haven't won't can't".split(" "),
);

type EnHit = "start" | "named" | false;

/** A place in an unpunctuated English run where a new sentence may start, with what surrounds it. */
interface EnCandidate {
  words: string[];
  /** The index of the word looked at. */
  at: number;
  /** `at`, moved back over up to two connectors ("and so what ..."). */
  opening: number;
  /** Where the current sentence started. */
  lastStart: number;
  word: string;
  next: string | undefined;
  /** The word before `opening`. */
  prev: string;
  /** Words from the current sentence's start to `opening`. */
  sinceOpening: number;
  /** Words from the current sentence's start to `at`. */
  sinceStart: number;
  /** The current sentence is a question. */
  inQuestion: boolean;
  /** A person's name (not governed by a preposition) ends right before `at`. */
  afterName: boolean;
}

/** The real start of a sentence whose first content word is at `at`: back over up to two connectors. */
function enOpening(words: string[], at: number, lastStart: number): number {
  let opening = at;
  let moved = 0;
  while (
    moved < 2 &&
    opening - 1 > lastStart + 1 &&
    MOVE_BACK.has(words[opening - 1]) &&
    !(words[opening - 1] === "then" && THEN_BOUND.has(words[opening - 2]))
  ) {
    opening--;
    moved++;
  }
  return opening;
}

/** A question starting, or the answer to the current question. */
function enQuestionOrAnswerStart(c: EnCandidate): EnHit {
  const { words, at, word, next, prev, sinceOpening, sinceStart, inQuestion } = c;
  const soFar = words.slice(c.lastStart, at);
  const whNear = [words[at - 1], words[at - 2], words[at - 3]].some(
    (before, back) => at - 1 - back >= c.lastStart && before && EN.questionWords.has(before),
  );
  if (
    soFar.length === 3 &&
    (EN_YES.has(soFar[0]) || soFar[0] === "no") &&
    EN.subjects.has(soFar[1]) &&
    SHORT_ANSWER_AUX.has(soFar[2]) &&
    (enStartsWhQuestion(words, at) || enStartsAuxQuestion(words, at) || SUBJECT_STARTS.has(word))
  )
    return "start";
  if (sinceOpening >= 3 && enStartsWhQuestion(words, at) && !EN_WH_PREV_BLOCK.has(prev)) return "named";
  if (sinceOpening >= 3 && enStartsAuxQuestion(words, at) && !EN_AUX_PREV_BLOCK.has(prev) && !whNear) return "named";
  if (
    sinceOpening >= 3 &&
    EN_PROMPT_START.test(words.slice(at, at + 4).join(" ")) &&
    !/^(to|can|could|would|you|i|we|will|please|and|not|me|us)$/.test(prev)
  )
    return "named";
  if (
    inQuestion &&
    sinceStart >= 2 &&
    ANSWER_STARTS.has(word) &&
    !ANSWER_PREV_BLOCK.has(words[at - 1]) &&
    !words.slice(at + 1, at + 5).some((later) => later === "you" || later === "your")
  )
    return "start";
  if (
    inQuestion &&
    sinceStart >= 4 &&
    THIRD_STARTS.has(word) &&
    next &&
    THIRD_NEXT.has(next) &&
    !ANSWER_PREV_BLOCK.has(words[at - 1])
  )
    return "start";
  if (c.afterName && sinceStart >= 3 && (SUBJECT_STARTS.has(word) || word === "it" || word === "so")) return "start";
  return false;
}

/** A short reply or turn-taking word: yes, no, well, okay, so, thanks, let me, bye... */
function enReplyStart(c: EnCandidate): EnHit {
  const { words, at, word, next, prev, sinceOpening } = c;
  if (EN_YES.has(word) && sinceOpening >= 2 && !EN_YES_NO_PREV_BLOCK.has(prev)) return "start";
  if (
    (word === "no" || word === "nope") &&
    sinceOpening >= 2 &&
    (!next || EN_NO_NEXT.has(next)) &&
    (!EN_YES_NO_PREV_BLOCK.has(prev) ||
      (/^(i|we|that's|it's|i'm|thank|thanks)$/.test(next ?? "") && !/^(say|said|says|saying)$/.test(prev)))
  )
    return "start";
  if (word === "well" && sinceOpening >= 3 && next && !EN_WELL_PREV_BLOCK.has(prev) && EN_WELL_NEXT.has(next))
    return "start";
  if (
    word === "that's" &&
    sinceOpening >= 3 &&
    (ACK_NEXT.has(next ?? "") || (next === "a" && ACK_NEXT.has(words[at + 2] ?? ""))) &&
    !PRONOUN_PREV_BLOCK.has(prev)
  )
    return "start";
  if (
    (word === "okay" || word === "ok" || word === "alright") &&
    sinceOpening >= 2 &&
    next &&
    !EN_OKAY_PREV_BLOCK.has(prev)
  )
    return "start";
  if (word === "all" && next === "right" && sinceOpening >= 3 && words[at + 2] && !EN_OKAY_PREV_BLOCK.has(prev))
    return "start";
  if (word === "so" && sinceOpening >= 5 && next && !EN_SO_NEXT_BLOCK.has(next) && !EN_SO_PREV_BLOCK.has(prev))
    return "start";
  if (
    ((word === "thank" && next === "you") || word === "thanks") &&
    sinceOpening >= 3 &&
    !EN_THANK_PREV_BLOCK.has(prev)
  )
    return "named";
  if (
    word === "let" &&
    (next === "me" || next === "us") &&
    sinceOpening >= 2 &&
    (!/^(to|will|would|can|could|i'll|you'll|please|just|you|won't)$/.test(prev) ||
      (prev === "you" && words[c.opening - 2] === "thank"))
  )
    return "start";
  if (word === "wow" && sinceOpening >= 3) return "start";
  if (word === "it" && words[at - 1] === "it" && sinceOpening >= 2 && THIRD_NEXT.has(next ?? "")) return "start";
  if (word === "like" && next === "i" && words[at + 2] === "said" && sinceOpening >= 2) return "start";
  return false;
}

/** Greetings and goodbyes, a few openers, and a run grown long enough to start anew at a subject or connector. */
function enGreetingOrLongRunStart(c: EnCandidate): EnHit {
  const { words, at, word, next, prev, sinceOpening, sinceStart } = c;
  if (
    GREETINGS.has(word) &&
    sinceOpening >= 3 &&
    /^(everyone|there|guys|all|folks|i'm|this|it's|and|is|welcome)$/.test(next ?? "")
  )
    return "start";
  if ((word === "bye" || word === "goodbye") && sinceOpening >= 2) return "start";
  if (
    word === "you" &&
    next === "too" &&
    sinceOpening >= 3 &&
    (at + 2 >= words.length || /^(bye|goodbye|thanks|thank|and|take|have)$/.test(words[at + 2]))
  )
    return "start";
  if (
    word === "honestly" &&
    sinceOpening >= 4 &&
    next &&
    /^(the|i|it|we|it's|i'm|that's|my|there's)$/.test(next) &&
    !EN.subjects.has(prev) &&
    !/^(was|is|be|very|quite)$/.test(prev)
  )
    return "start";
  if (word === "please" && sinceOpening >= 6 && !/^(could|can|would|will|you|just|yes|me)$/.test(prev)) return "start";
  if (
    word === "if" &&
    sinceStart >= 10 &&
    !/^(as|even|only|see|wonder|wondering|ask|asked|know|what|or|it|me|them|him|her|us|you|matter|and|but)$/.test(prev)
  )
    return "start";
  if (word === "and" && next === "then" && sinceStart >= 10) return "start";
  if (word === "but" && sinceStart >= 12) return "start";
  if (word === "i" && next === "mean" && sinceOpening >= 3 && !/^(what|you|do|i|if)$/.test(prev)) return "start";
  if ((word === "anyway" || word === "anyways") && sinceOpening >= 3) return "start";
  if (sinceStart >= 9 && SUBJECT_STARTS.has(word) && !PRONOUN_PREV_BLOCK.has(words[at - 1])) return "start";
  if (sinceStart >= 25 && /^(and|but|so|because|then)$/.test(word)) return "start";
  if (sinceStart >= 40 && /^(i|we|they|he|she|it's|there's)$/.test(word)) return "start";
  if (sinceStart >= 50) return "start";
  return false;
}

/** The heuristic sentence starts of an unpunctuated English run (indices into words). */
function enBoundaries(words: string[], people: Person[]): number[] {
  const starts: number[] = [];
  let lastStart = 0;
  let inQuestion = enIsQuestion(words.slice(0, 8), people);
  for (let at = 1; at < words.length; at++) {
    const opening = enOpening(words, at, lastStart);
    const nameBefore = nameEndingAt(words, at, people, lastStart + 1).len;
    const candidate: EnCandidate = {
      words,
      at,
      opening,
      lastStart,
      word: words[at],
      next: words[at + 1],
      prev: words[opening - 1] ?? "",
      sinceOpening: opening - lastStart,
      sinceStart: at - lastStart,
      inQuestion,
      afterName: nameBefore > 0 && !NAME_GOVERNORS.has(words[at - 1 - nameBefore] ?? "and"),
    };
    const hit = enQuestionOrAnswerStart(candidate) || enReplyStart(candidate) || enGreetingOrLongRunStart(candidate);
    if (!hit) continue;
    let start = opening - lastStart >= 2 ? opening : at;
    // A name right before the start addresses the person the new sentence talks to ("david | thanks for ..."):
    // it opens the new sentence when nothing governs it.
    const named = nameEndingAt(words, opening, people, lastStart + 1);
    const nameMovable = named.len > 0 && !NAME_GOVERNORS.has(words[opening - named.len - 1] ?? "and");
    if (hit === "named" && nameMovable && start === opening && opening - named.len - lastStart >= 2) {
      start = opening - named.len;
    }
    if (start - lastStart < 1) continue;
    starts.push(start);
    lastStart = start;
    inQuestion = enIsQuestion(words.slice(start, start + 8), people);
    at = Math.max(at, start);
  }
  return starts;
}

const FR_WH_PREV_BLOCK = new Set("je sais pas ce c'est savoir demande dire que de me".split(" "));
const ES_WH_PREV_BLOCK = new Set("sé saber que de lo no pregunto me".split(" "));

function deLikeBoundaries(w: string[], lang: "de" | "fr" | "es", people: Person[]): number[] {
  const starts: number[] = [];
  const rules = RULES[lang];
  const qStart = lang === "de" ? DE_QUESTION_START : lang === "fr" ? FR_QUESTION_START : ES_QUESTION_START;
  const prevBlock = lang === "de" ? DE_WH_PREV_BLOCK : lang === "fr" ? FR_WH_PREV_BLOCK : ES_WH_PREV_BLOCK;
  const caps =
    lang === "de"
      ? /^(und|aber|also|dann|weil)$/
      : lang === "fr"
        ? /^(et|mais|donc|alors|parce)$/
        : /^(y|pero|entonces|porque)$/;
  const answerStarts =
    lang === "de"
      ? /^(ich|wir|also|ja|naja|nein|genau)$/
      : lang === "fr"
        ? /^(je|j'ai|nous|oui|non|alors|bon)$/
        : /^(yo|sí|no|bueno|pues)$/;
  const answerPrevBlock =
    lang === "de"
      ? /^(dass|ob|wenn|was|wie|weil|und|oder|aber|haben|hast|sind|bist|können|kannst|würden|möchten|wollen|sollen|würde|habe|hätte|als|wo|wer)$/
      : /^(que|si|quand|comment|et|ou|mais|est-ce|qu'est-ce)$/;
  let last = 0;
  const asksAt = (k: number) => qStart.test(w.slice(questionStart(w, k, people, lang), k + 8).join(" "));
  let qMode = asksAt(0);
  for (let i = 1; i < w.length; i++) {
    let s = i;
    while (s - 1 > last + 1 && rules.connectors.has(w[s - 1]) && i - s < 2) s--;
    const prev = w[s - 1] ?? "";
    const cur = s - last;
    const whNear = [w[i - 1], w[i - 2]].some((p, k) => i - 1 - k >= last && p && rules.questionWords.has(p));
    let hit = false;
    if (
      cur >= 3 &&
      !prevBlock.has(prev) &&
      !whNear &&
      !rules.connectors.has(w[i]) &&
      qStart.test(w.slice(i, i + 3).join(" "))
    )
      hit = true;
    else if (qMode && i - last >= 4 && answerStarts.test(w[i]) && !answerPrevBlock.test(w[i - 1])) hit = true;
    else if (lang === "de" && w[i] === "also" && cur >= 6 && w[i + 1]) hit = true;
    else if (i - last >= 25 && caps.test(w[i])) hit = true;
    else if (i - last >= 50) hit = true;
    if (!hit) continue;
    const start = qMode && answerStarts.test(w[i]) ? i : s;
    starts.push(start);
    last = start;
    qMode = asksAt(start);
  }
  return starts;
}

export function isQuestionWords(w: string[], lang: TextLang, people: Person[]): boolean {
  if (w.length === 0) return false;
  if (lang === "en") return enIsQuestion(w, people);
  const j = questionStart(w, 0, people, lang);
  const text = w.slice(j).join(" ");
  if (lang === "de") return DE_QUESTION_START.test(text) || /\b(oder|nicht wahr)$/.test(text);
  if (lang === "fr") return FR_QUESTION_START.test(text) || /n'est-ce pas$/.test(text);
  if (lang === "es") return ES_QUESTION_START.test(text) || /\b(verdad)$/.test(text);
  return false;
}

/** Heuristic sentence boundaries inside one unpunctuated chunk. */
export function splitRun(chunk: Token[], lang: TextLang, people: Person[]): Token[][] {
  const w = chunk.map((t) => normWord(t.word));
  const starts =
    lang === "en"
      ? enBoundaries(w, people)
      : lang === "de" || lang === "fr" || lang === "es"
        ? deLikeBoundaries(w, lang, people)
        : [];
  const out: Token[][] = [];
  let from = 0;
  for (const s of starts) {
    if (s > from) out.push(chunk.slice(from, s));
    from = s;
  }
  out.push(chunk.slice(from));
  return out.filter((s) => s.some((t) => t.word));
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

/** Whether a text carries sentence punctuation (Whisper) rather than being one long run (pocketsphinx). */
export function isPunctuated(text: string, lang: TextLang): boolean {
  if (lang === "ja" || lang === "zh") return /[。！？]/.test(text);
  const words = text.split(/\s+/).filter(Boolean).length;
  const enders = (text.match(/[.?!…](?=\s|$)/g) ?? []).length;
  return words === 0 || enders >= Math.max(1, words / 40);
}
