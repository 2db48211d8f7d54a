/**
 * Clean verbatim, checked: whether a rewrite of a transcript section kept each speaker's words.
 * With no tone, the interviewee's words are theirs: a rewrite may only remove fillers, stutters,
 * cut words, false starts and repeated words, and add punctuation and casing. The interviewer's
 * questions may be tightened, so their turns are not checked.
 *
 * The answer's words are aligned to the section's words (jsdiff's diffArrays over the language
 * toolkit's word tokens, so Japanese and Chinese are split into words too); every transcript word
 * then belongs to the answer turn it reached, or, when it was left out, to a turn next to it (the
 * interviewer's at a turn boundary, since a question may be shortened). Per checked turn it names
 * the problems: words added or changed (a spelled-out contraction named as such), words left out
 * that are no filler, stutter, repeat or false start, and question marks added to sentences that
 * were not asked as questions.
 */

import { tokenize, type WordToken } from "@kikitori/shared/language";
import { diffArrays } from "diff";
import { type FormatContext, parseLabelledText, type TurnFormat } from "./format.ts";
import type { Role } from "./port.ts";
import { rulesFor, SOUND_FILLER, type TextLang } from "./rules.ts";
import { EXPANSIONS } from "./tone.ts";

export interface VerbatimPlan {
  lang: TextLang;
  spaceless: boolean;
  format: TurnFormat;
  ctx: FormatContext;
  /** Whether a sentence asks by its own form (the offline engine's rule). */
  asksByForm: (sentence: string, lang: TextLang) => boolean;
}

export interface CheckedTurn {
  role: Role | null;
  /** A further speaker's label. */
  label?: string;
  /** Whether the answer labelled the turn (an unlabelled turn continues the previous section's). */
  marked: boolean;
  /** The answer's text of the turn, without its label. */
  text: string;
  /** The transcript's words this turn stands for. */
  source: string;
  /** Why the turn is not clean verbatim; empty when it is (or when it is not checked). */
  problems: string[];
}

/** Hesitations of Japanese and Chinese as the word segmenter cuts them. */
const SPACELESS_FILLERS = new Set(
  "えー えーと えっと ええと えーっと あー あの あのー その そのー なんか まあ まぁ まー うーん んー う ー 嗯 呃 那个 就是说 啊".split(
    " ",
  ),
);
/** Drawn-out German and Spanish hesitations, beyond the offline rules' sound fillers. */
const DRAWN_OUT_FILLER = /^(?:ä+h+m*|e+h+m*)$/;
const PHRASE_FILLERS: ReadonlyArray<[string, string]> = [
  ["you", "know"],
  ["i", "mean"],
];
const MAX_FALSE_START = 4;
const RESTART_WINDOW = 6;

interface SourceWord {
  token: WordToken;
  /** Index of the transcript paragraph it was read from. */
  para: number;
  /** The text right after it (a "-" marks a cut word). */
  after: string;
}

const checked = (role: Role | null) => role !== "interviewer";
const quote = (words: string[]) => `"${words.join(" ")}"`;

/** Splits a text into its turns (labels removed); unlabelled text is one unmarked turn. */
function turnsOf(text: string, plan: VerbatimPlan) {
  return (
    parseLabelledText(text, plan.format, plan.ctx) ?? [{ role: null, marked: false, paragraphs: [text] as string[] }]
  );
}

/** Checks `answer` (a rewrite of `source`) turn by turn. */
export function checkVerbatim(source: string, answer: string, plan: VerbatimPlan): CheckedTurn[] {
  const lang = plan.lang === "other" ? "und" : plan.lang;
  const paras = turnsOf(source, plan).flatMap((t) => t.paragraphs);
  const src: SourceWord[] = [];
  paras.forEach((p, para) => {
    for (const token of tokenize(p, lang)) src.push({ token, para, after: p.slice(token.end, token.end + 2) });
  });
  const answerTurns = turnsOf(answer, plan);
  const ans: Array<{ token: WordToken; turn: number }> = [];
  const texts = answerTurns.map((t) => t.paragraphs.join(plan.format.separator));
  texts.forEach((text, turn) => {
    for (const token of tokenize(text, lang)) ans.push({ token, turn });
  });

  // Who each transcript word belongs to (-1: left out, decided below) and what was added where.
  const owner = new Array<number>(src.length).fill(-1);
  const matched = new Array<boolean>(src.length).fill(false);
  const problems = answerTurns.map(() => [] as string[]);
  let i = 0;
  let j = 0;
  const changes = diffArrays(
    src.map((w) => w.token.norm),
    ans.map((w) => w.token.norm),
  );
  for (let c = 0; c < changes.length; c++) {
    const change = changes[c];
    const n = change.count ?? change.value.length;
    if (change.added) {
      const prev = changes[c - 1];
      // A replacement: the words left out just before, as many as were added (the rest is left out).
      const removedCount = prev?.removed ? (prev.count ?? prev.value.length) : 0;
      const added = ans.slice(j, j + n);
      const turn = added[0].turn;
      // Numbers said in words and written as numerals ("twenty ten" → "2010") are the same words.
      const said = numberWordsBefore(src, i, removedCount, plan.lang);
      const numerals =
        said > 0 &&
        added.length === 1 &&
        NUMERAL.test(added[0].token.norm) &&
        valuesOf(src.slice(i - said, i).map((w) => w.token.norm)).includes(
          Number(added[0].token.norm.replace(/,/g, "")),
        );
      const replaced = src.slice(i - (numerals ? said : Math.min(removedCount, n)), i);
      if (checked(answerTurns[turn].role) && !numerals)
        problems[turn].push(
          describeChange(
            replaced,
            added.map((a) => a.token),
          ),
        );
      // Replaced words belong to the turn that replaced them (and are reported there, not as left out).
      for (let k = i - replaced.length; k < i; k++) {
        owner[k] = turn;
        matched[k] = true;
      }
      j += n;
    } else if (change.removed) {
      i += n;
    } else {
      for (let k = 0; k < n; k++) {
        owner[i + k] = ans[j + k].turn;
        matched[i + k] = true;
      }
      i += n;
      j += n;
    }
  }
  // Left-out words: to the turn around them; at a boundary, the interviewer's (a question may be cut).
  for (let k = 0; k < src.length; k++) {
    if (matched[k]) continue;
    let before = -1;
    for (let b = k - 1; b >= 0; b--)
      if (matched[b]) {
        before = owner[b];
        break;
      }
    let after = -1;
    for (let a = k + 1; a < src.length; a++)
      if (matched[a]) {
        after = owner[a];
        break;
      }
    const roleOf = (t: number) => (t >= 0 ? answerTurns[t].role : null);
    if (before === after) owner[k] = before;
    else if (roleOf(before) === "interviewer") owner[k] = before;
    else if (roleOf(after) === "interviewer") owner[k] = after;
    else owner[k] = after >= 0 ? after : before;
    if (owner[k] < 0) owner[k] = 0;
  }
  leftOutProblems(src, matched, owner, plan.lang, (turn, msg) => {
    if (answerTurns[turn] && checked(answerTurns[turn].role)) problems[turn].push(msg);
  });

  return answerTurns.map((t, turn) => {
    const mine = src.filter((_, k) => owner[k] === turn);
    const sourceText = spanText(mine, paras, plan.spaceless);
    const out: CheckedTurn = {
      role: t.role,
      ...(t.label ? { label: t.label } : {}),
      marked: t.marked,
      text: texts[turn],
      source: sourceText,
      problems: problems[turn],
    };
    if (checked(t.role)) {
      const added = addedQuestions(texts[turn], sourceText, plan);
      if (added.length) out.problems.push(...added.map((s) => `added a question mark to "${s}"`));
    }
    return out;
  });
}

const EN_NUMBER_WORDS = new Set(
  "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion and point percent".split(
    " ",
  ),
);
const NUMERAL = /^\p{N}[\p{N}.,]*$/u;

const EN_UNITS = new Map(
  "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
    .split(" ")
    .map((w, k) => [w, k]),
);
const EN_TENS = new Map(
  "twenty thirty forty fifty sixty seventy eighty ninety".split(" ").map((w, k) => [w, 20 + k * 10]),
);
const EN_SCALES = new Map([
  ["thousand", 1e3],
  ["million", 1e6],
  ["billion", 1e9],
]);

/** The value of English number words ("two thousand and five" → 2005); null when they are not one. */
function cardinal(words: string[]): number | null {
  let total = 0;
  let current = 0;
  let any = false;
  for (const w of words) {
    if (w === "and" || w === "percent") continue;
    if (EN_UNITS.has(w)) current += EN_UNITS.get(w)!;
    else if (EN_TENS.has(w)) current += EN_TENS.get(w)!;
    else if (w === "hundred") current = (current || 1) * 100;
    else if (EN_SCALES.has(w)) {
      total += (current || 1) * EN_SCALES.get(w)!;
      current = 0;
    } else return null;
    any = true;
  }
  return any ? total + current : null;
}

/** What English number words may stand for: their value, or a year said in pairs ("nineteen eighty four"). */
function valuesOf(words: string[]): number[] {
  const out: number[] = [];
  const whole = cardinal(words);
  if (whole !== null) out.push(whole);
  for (let k = 1; k < words.length; k++) {
    const century = cardinal(words.slice(0, k));
    const rest = cardinal(words.slice(k));
    if (century !== null && rest !== null && century >= 10 && century <= 99 && rest <= 99)
      out.push(century * 100 + rest);
  }
  return out;
}

/** How many of the `count` words left out before `end` are, at their end, English number words. */
function numberWordsBefore(src: SourceWord[], end: number, count: number, lang: TextLang): number {
  if (lang !== "en") return 0;
  let k = 0;
  while (k < count && EN_NUMBER_WORDS.has(src[end - 1 - k].token.norm)) k++;
  return k;
}

function describeChange(replaced: SourceWord[], added: WordToken[]): string {
  const from = replaced.map((w) => w.token.surface);
  const to = added.map((w) => w.surface);
  const wording = ` ${to.join(" ").toLowerCase()} `;
  for (const w of replaced) {
    const full = EXPANSIONS[w.token.norm];
    if (full && wording.includes(` ${full.toLowerCase()} `))
      return `spelled out the contraction "${w.token.surface}" as "${full}"`;
  }
  return from.length ? `changed ${quote(from)} to ${quote(to)}` : `added ${quote(to)}`;
}

/** Left-out words that are no filler, stutter, cut word, repeat or false start, by turn. */
function leftOutProblems(
  src: SourceWord[],
  matched: boolean[],
  owner: number[],
  lang: TextLang,
  report: (turn: number, msg: string) => void,
): void {
  const rules = rulesFor(lang);
  const norm = (k: number) => src[k]?.token.norm ?? "";
  const removed = (k: number) => k >= 0 && k < src.length && !matched[k];
  const explained = (k: number): boolean => {
    const w = norm(k);
    if (
      rules.fillers.has(w) ||
      rules.commaFillers.has(w) ||
      SOUND_FILLER.test(w) ||
      DRAWN_OUT_FILLER.test(w) ||
      SPACELESS_FILLERS.has(w)
    )
      return true;
    for (const [a, b] of PHRASE_FILLERS) {
      if (w === a && norm(k + 1) === b && removed(k + 1)) return true;
      if (w === b && norm(k - 1) === a && removed(k - 1)) return true;
    }
    // Stutters and cut words: "w- we", "go- going".
    if (/^\s?[-–—]/.test(src[k].after)) return true;
    // Repeats: the same word or phrase (up to three words) next to it.
    for (let n = 1; n <= 3; n++) {
      for (let start = k - n + 1; start <= k; start++) {
        if (start < 0) continue;
        let before = true;
        let after = true;
        for (let m = 0; m < n; m++) {
          if (norm(start + m) !== norm(start + n + m)) after = false;
          if (norm(start + m) !== norm(start - n + m)) before = false;
        }
        if (after || before) return true;
      }
    }
    return false;
  };
  let k = 0;
  while (k < src.length) {
    if (matched[k]) {
      k++;
      continue;
    }
    let end = k;
    while (end < src.length && !matched[end] && owner[end] === owner[k]) end++;
    const unexplained: number[] = [];
    for (let m = k; m < end; m++) if (!explained(m)) unexplained.push(m);
    if (unexplained.length > 0) {
      // A false start: a few words the speaker broke off and said again, or cut with a dash.
      const restart = new Set<string>();
      for (let m = end; m < Math.min(src.length, end + RESTART_WINDOW); m++) restart.add(norm(m));
      const falseStart =
        unexplained.length <= MAX_FALSE_START &&
        end < src.length &&
        (/^\s?[-–—]/.test(src[end - 1].after) || unexplained.some((m) => restart.has(norm(m))));
      if (!falseStart) report(owner[k], `left out ${quote(unexplained.map((m) => src[m].token.surface))}`);
    }
    k = end;
  }
}

/** The transcript text of some of its words, in order (pieces of one paragraph joined as they stand). */
function spanText(words: SourceWord[], paras: string[], spaceless: boolean): string {
  const pieces: string[] = [];
  let k = 0;
  while (k < words.length) {
    let end = k;
    while (end + 1 < words.length && words[end + 1].para === words[k].para) end++;
    pieces.push(paras[words[k].para].slice(words[k].token.start, words[end].token.end));
    k = end + 1;
  }
  return pieces.join(spaceless ? "" : " ");
}

/** Sentences of `text` ending in a question mark the transcript did not have and the form does not carry. */
function addedQuestions(text: string, source: string, plan: VerbatimPlan): string[] {
  const asked = (source.match(/[?？؟]/g) ?? []).length;
  const questions = text.match(/[^.!?。！？؟\n]*[?？؟]/g) ?? [];
  const unasked = questions.map((q) => q.trim()).filter((q) => q && !plan.asksByForm(q, plan.lang));
  return unasked.length > asked ? unasked.slice(asked) : [];
}

/** Whether any checked turn drifted from clean verbatim. */
export const drifted = (turns: CheckedTurn[]) => turns.some((t) => t.problems.length > 0);

/** What to tell the model about the turns that drifted, to ask again. */
export function driftMessage(turns: CheckedTurn[], plan: VerbatimPlan): string {
  const lines = turns
    .filter((t) => t.problems.length > 0)
    .map((t) => `- In the turn "${labelFor(t, plan.format) ?? ""}${t.text.slice(0, 80)}…": ${t.problems.join("; ")}.`);
  return [
    "That answer changed what the interviewee said. No tone is chosen, so the text is clean verbatim: keep every word the interviewee said as it was transcribed; only fillers, stutters, false starts and repeated words may go; never spell out or add contractions, never replace or add words, never add a question mark to something not asked as a question.",
    ...lines,
    'Answer again with the whole section as the JSON object {"text": "<the corrected section>"}.',
  ].join("\n");
}

function labelFor(t: Pick<CheckedTurn, "role" | "label" | "marked">, format: TurnFormat): string | null {
  if (!t.marked) return null;
  const label =
    t.role === "interviewee"
      ? format.intervieweeLabel
      : t.role === "interviewer" || !t.label
        ? format.interviewerLabel
        : format.template.replace("{L}", t.label);
  return `${label}${format.gap}`;
}

/**
 * The section with every drifted turn replaced by `clean` (the clean-verbatim text of the words it
 * stands for) under its label; a drifted turn that stands for no transcript words is dropped.
 */
export function repairTurns(
  turns: CheckedTurn[],
  format: TurnFormat,
  clean: (source: string, role: Role) => string,
): string {
  const out: string[] = [];
  for (const t of turns) {
    const text = t.problems.length > 0 ? (t.source.trim() ? clean(t.source, t.role ?? "interviewee") : "") : t.text;
    if (!text.trim()) continue;
    out.push(`${labelFor(t, format) ?? ""}${text}`);
  }
  return out.join(format.separator);
}
