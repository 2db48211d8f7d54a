/**
 * Sentences: split at existing punctuation, or (for unpunctuated ASR output) at heuristic
 * boundaries; then each sentence is punctuated and capitalised. Only punctuation and letter case
 * are added; words are only ever removed (sentence-initial "I mean", sentence-final "you know").
 */

import { normWord } from "@kikitori/shared/language";
import type { Role } from "./port.ts";
import {
  DE_QUESTION_START,
  DE_WH_PREV_BLOCK,
  EN_AFTER_INV_BLOCK,
  EN_AMBIGUOUS_NAMES,
  EN_AUX_PREV_BLOCK,
  EN_COMMA_AFTER,
  EN_COMMA_NEXT_BLOCK,
  EN_INTERVIEWEE_CUES,
  EN_INTERVIEWER_CLOSING,
  EN_INTERVIEWER_CUES,
  EN_MONTHS_DAYS,
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
import { hasComma, hasEnder, renderTokens, type Token } from "./tokens.ts";

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
}

/** A person's name as lower-case word sequences that may address them ("david okafor", "david"). */
export interface Person {
  role: Role;
  forms: string[][];
}

const TITLES = new Set("mr mrs ms miss dr doctor prof professor frau herr madame monsieur señor señora sir".split(" "));

export function peopleOf(names: Array<[Role, string]>): Person[] {
  const out: Person[] = [];
  for (const [role, name] of names) {
    const words = name
      .toLowerCase()
      .split(/\s+/)
      .map((w) => w.replace(/[.,]/g, ""))
      .filter((w) => /^\p{L}[\p{L}'’-]*$/u.test(w));
    if (words.length === 0) continue;
    const forms = [words];
    if (words.length > 1 && !TITLES.has(words[0])) forms.push([words[0]]);
    out.push({ role, forms });
  }
  return out;
}

/** Length of a name that ends right before index `end` (0 if none). */
function nameEndingAt(w: string[], end: number, people: Person[], from = 0): { len: number; role: Role | null } {
  let best = { len: 0, role: null as Role | null };
  for (const p of people) {
    for (const f of p.forms) {
      const start = end - f.length;
      if (start < from || f.length <= best.len) continue;
      if (f.every((x, k) => w[start + k] === x)) best = { len: f.length, role: p.role };
    }
  }
  return best;
}

function nameStartingAt(w: string[], start: number, people: Person[]): { len: number; role: Role | null } {
  let best = { len: 0, role: null as Role | null };
  for (const p of people) {
    for (const f of p.forms) {
      if (f.length <= best.len) continue;
      if (f.every((x, k) => w[start + k] === x)) best = { len: f.length, role: p.role };
    }
  }
  return best;
}

/** Words before a name that make it part of the sentence, not a form of address ("with David"). */
const NAME_GOVERNORS = new Set(
  "with to for and from by of about like at in on is was am i'm named called meet ask asked call than as or mister mit und von für zu bei avec et pour de con y para".split(
    " ",
  ),
);

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
const MOVE_BACK = new Set("and so but okay ok well now oh alright then also".split(" "));
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

/** The heuristic sentence starts of an unpunctuated English run (indices into w). */
function enBoundaries(w: string[], people: Person[]): number[] {
  const starts: number[] = [];
  let last = 0;
  let qMode = enIsQuestion(w.slice(0, 8), people);
  const n = w.length;
  for (let i = 1; i < n; i++) {
    // The real start: back over up to two connectors ("and so what ...").
    let s = i;
    let moved = 0;
    while (
      moved < 2 &&
      s - 1 > last + 1 &&
      MOVE_BACK.has(w[s - 1]) &&
      !(w[s - 1] === "then" && THEN_BOUND.has(w[s - 2]))
    ) {
      s--;
      moved++;
    }
    const prev = w[s - 1] ?? "";
    const cur = s - last;
    const len = i - last;
    const x = w[i];
    const next = w[i + 1];
    // A name right before the start addresses the person the new sentence talks to ("david | thanks for ...").
    const before = nameEndingAt(w, s, people, last + 1);
    const nameMovable = before.len > 0 && !NAME_GOVERNORS.has(w[s - before.len - 1] ?? "and");
    const prevName = nameEndingAt(w, i, people, last + 1).len;
    const prevIsName = prevName > 0 && !NAME_GOVERNORS.has(w[i - 1 - prevName] ?? "and");
    const whNear = [w[i - 1], w[i - 2], w[i - 3]].some((p, k) => i - 1 - k >= last && p && EN.questionWords.has(p));
    const soFar = w.slice(last, i);
    let hit: "start" | "named" | false = false;
    if (
      soFar.length === 3 &&
      (EN_YES.has(soFar[0]) || soFar[0] === "no") &&
      EN.subjects.has(soFar[1]) &&
      SHORT_ANSWER_AUX.has(soFar[2]) &&
      (enStartsWhQuestion(w, i) || enStartsAuxQuestion(w, i) || SUBJECT_STARTS.has(x))
    )
      hit = "start";
    else if (cur >= 3 && enStartsWhQuestion(w, i) && !EN_WH_PREV_BLOCK.has(prev)) hit = "named";
    else if (cur >= 3 && enStartsAuxQuestion(w, i) && !EN_AUX_PREV_BLOCK.has(prev) && !whNear) hit = "named";
    else if (
      cur >= 3 &&
      EN_PROMPT_START.test(w.slice(i, i + 4).join(" ")) &&
      !/^(to|can|could|would|you|i|we|will|please|and|not|me|us)$/.test(prev)
    )
      hit = "named";
    else if (
      qMode &&
      len >= 2 &&
      ANSWER_STARTS.has(x) &&
      !ANSWER_PREV_BLOCK.has(w[i - 1]) &&
      !w.slice(i + 1, i + 5).some((y) => y === "you" || y === "your")
    )
      hit = "start";
    else if (
      qMode &&
      len >= 4 &&
      THIRD_STARTS.has(x) &&
      next &&
      THIRD_NEXT.has(next) &&
      !ANSWER_PREV_BLOCK.has(w[i - 1])
    )
      hit = "start";
    else if (prevIsName && len >= 3 && (SUBJECT_STARTS.has(x) || x === "it" || x === "so")) hit = "start";
    else if (EN_YES.has(x) && cur >= 2 && !EN_YES_NO_PREV_BLOCK.has(prev)) hit = "start";
    else if (
      (x === "no" || x === "nope") &&
      cur >= 2 &&
      (!next || EN_NO_NEXT.has(next)) &&
      (!EN_YES_NO_PREV_BLOCK.has(prev) ||
        (/^(i|we|that's|it's|i'm|thank|thanks)$/.test(next ?? "") && !/^(say|said|says|saying)$/.test(prev)))
    )
      hit = "start";
    else if (x === "well" && cur >= 3 && next && !EN_WELL_PREV_BLOCK.has(prev) && EN_WELL_NEXT.has(next)) hit = "start";
    else if (
      x === "that's" &&
      cur >= 3 &&
      (ACK_NEXT.has(next ?? "") || (next === "a" && ACK_NEXT.has(w[i + 2] ?? ""))) &&
      !PRONOUN_PREV_BLOCK.has(prev)
    )
      hit = "start";
    else if ((x === "okay" || x === "ok" || x === "alright") && cur >= 2 && next && !EN_OKAY_PREV_BLOCK.has(prev))
      hit = "start";
    else if (x === "all" && next === "right" && cur >= 3 && w[i + 2] && !EN_OKAY_PREV_BLOCK.has(prev)) hit = "start";
    else if (x === "so" && cur >= 5 && next && !EN_SO_NEXT_BLOCK.has(next) && !EN_SO_PREV_BLOCK.has(prev))
      hit = "start";
    else if (((x === "thank" && next === "you") || x === "thanks") && cur >= 3 && !EN_THANK_PREV_BLOCK.has(prev))
      hit = "named";
    else if (
      x === "let" &&
      (next === "me" || next === "us") &&
      cur >= 2 &&
      (!/^(to|will|would|can|could|i'll|you'll|please|just|you|won't)$/.test(prev) ||
        (prev === "you" && w[s - 2] === "thank"))
    )
      hit = "start";
    else if (x === "wow" && cur >= 3) hit = "start";
    else if (x === "it" && w[i - 1] === "it" && cur >= 2 && THIRD_NEXT.has(next ?? "")) hit = "start";
    else if (x === "like" && next === "i" && w[i + 2] === "said" && cur >= 2) hit = "start";
    else if (
      GREETINGS.has(x) &&
      cur >= 3 &&
      /^(everyone|there|guys|all|folks|i'm|this|it's|and|is|welcome)$/.test(next ?? "")
    )
      hit = "start";
    else if ((x === "bye" || x === "goodbye") && cur >= 2) hit = "start";
    else if (
      x === "you" &&
      next === "too" &&
      cur >= 3 &&
      (i + 2 >= n || /^(bye|goodbye|thanks|thank|and|take|have)$/.test(w[i + 2]))
    )
      hit = "start";
    else if (
      x === "honestly" &&
      cur >= 4 &&
      next &&
      /^(the|i|it|we|it's|i'm|that's|my|there's)$/.test(next) &&
      !EN.subjects.has(prev) &&
      !/^(was|is|be|very|quite)$/.test(prev)
    )
      hit = "start";
    else if (x === "please" && cur >= 6 && !/^(could|can|would|will|you|just|yes|me)$/.test(prev)) hit = "start";
    else if (
      x === "if" &&
      len >= 10 &&
      !/^(as|even|only|see|wonder|wondering|ask|asked|know|what|or|it|me|them|him|her|us|you|matter|and|but)$/.test(
        prev,
      )
    )
      hit = "start";
    else if (x === "and" && next === "then" && len >= 10) hit = "start";
    else if (x === "but" && len >= 12) hit = "start";
    else if (x === "i" && next === "mean" && cur >= 3 && !/^(what|you|do|i|if)$/.test(prev)) hit = "start";
    else if ((x === "anyway" || x === "anyways") && cur >= 3) hit = "start";
    else if (len >= 9 && SUBJECT_STARTS.has(x) && !PRONOUN_PREV_BLOCK.has(w[i - 1])) hit = "start";
    else if (len >= 25 && /^(and|but|so|because|then)$/.test(x)) hit = "start";
    else if (len >= 40 && /^(i|we|they|he|she|it's|there's)$/.test(x)) hit = "start";
    else if (len >= 50) hit = "start";
    if (!hit) continue;
    let start = s - last >= 2 ? s : i;
    // "david, thanks for joining us": the name opens the new sentence when nothing governs it.
    if (hit === "named" && nameMovable && start === s && s - before.len - last >= 2) start = s - before.len;
    if (start - last < 1) continue;
    starts.push(start);
    last = start;
    qMode = enIsQuestion(w.slice(start, start + 8), people);
    i = Math.max(i, start);
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

function isQuestionWords(w: string[], lang: TextLang, people: Person[]): boolean {
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
  if (!ender) {
    const question = isQuestionWords(words, lang, people);
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
  return { text, question, prompt, cue, addressed, words: words.length, at: toks[0].at };
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

/* ------------------------------------------------------------------ */
/* Japanese and Chinese                                                 */
/* ------------------------------------------------------------------ */

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー々〆〇";
const CJK_CHAR = new RegExp(`[${CJK}、。，！？「」『』（）]`, "u");
const BOUNDARY = "\u0000";
const JA_FINAL =
  /(ませんでした|でしょうか|ませんか|ですか|ますか|でしたか|ましたか|ですよね|ますよね|ですね|ますね|ですよ|ますよ|でした|ました|ません|でしょう|ましょう|ください|下さい|んです|です|ます)(?![がけしからのでとねよなもかって、。！？!?」』）)ーわ])/g;
const JA_FINAL_BEFORE_SPACE =
  /(?:ます|です|ました|でした|ません|でしょう|ましょう|ください|か|ね|よ|だ|った|んです|のです|けど|ですけど)$/;
const ZH_FINAL_BEFORE_SPACE = /[吗呢吧]$/;
const JA_PROMPT = /(?:教えて|聞かせて|話して|お聞かせ)(?:ください|下さい)/;

const CJK_QUESTION = new RegExp(`(?<=[${CJK}])\\s*\\?`, "gu");
const CJK_EXCLAMATION = new RegExp(`(?<=[${CJK}])\\s*!`, "gu");
const CJK_COMMA = new RegExp(`(?<=[${CJK}])\\s*,\\s*`, "gu");

/** Splits Japanese/Chinese text into sentences and gives each an ending (。/？) when it lacks one. */
export function segmentSpaceless(text: string, lang: "ja" | "zh"): Sentence[] {
  let s = text.replace(/[ \t\u3000]+/g, " ").replace(/\s*\n\s*/g, "\n");
  // ASCII punctuation between CJK characters → full-width.
  s = s
    .replace(CJK_QUESTION, "？")
    .replace(CJK_EXCLAMATION, "！")
    .replace(CJK_COMMA, lang === "ja" ? "、" : "，");
  s = s.replace(/([。！？!?]+[」』）)]*)/g, `$1${BOUNDARY}`);
  if (lang === "ja") s = s.replace(JA_FINAL, `$1${BOUNDARY}`);
  // Spaces and line breaks: a pause. A sentence end after a final form, else a comma between CJK characters.
  s = s.replace(/[ \n]+/g, (m, offset: number, all: string) => {
    const left = all.slice(Math.max(0, offset - 8), offset);
    const right = all[offset + m.length] ?? "";
    const l = left.at(-1) ?? "";
    if (!l || l === BOUNDARY || !right) return BOUNDARY;
    if (!CJK_CHAR.test(l) || !CJK_CHAR.test(right)) return m.includes("\n") ? BOUNDARY : " ";
    if (/[、，。！？]/.test(l)) return "";
    if (lang === "ja" ? JA_FINAL_BEFORE_SPACE.test(left) : ZH_FINAL_BEFORE_SPACE.test(left)) return BOUNDARY;
    return lang === "ja" ? "、" : "，";
  });
  const out: Sentence[] = [];
  for (let part of s.split(BOUNDARY)) {
    part = part.trim().replace(/^[、，,\s]+/, "");
    if (!part || !/[\p{L}\p{N}]/u.test(part)) continue;
    part = part.replace(/[、，,\s]+$/, "");
    let question: boolean;
    if (/[。！？!?][」』）)]*$/.test(part)) {
      part = part.replace(/\?([」』）)]*)$/, "？$1").replace(/!([」』）)]*)$/, "！$1");
      question = /？[」』）)]*$/.test(part);
    } else {
      question = lang === "ja" ? /か$/.test(part) : /[吗呢]$/.test(part);
      part += question ? "？" : "。";
    }
    const prompt = !question && lang === "ja" && JA_PROMPT.test(part);
    out.push({ text: part, question, prompt, cue: null, addressed: null, words: part.length });
  }
  return out;
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
