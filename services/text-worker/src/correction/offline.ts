/**
 * The offline correction engine: deterministic rules and heuristics, no network. With no tone it
 * writes clean verbatim: the words as said, without fillers, stutters, false starts and repeated
 * words, with punctuation and casing; a question mark the rules guess goes only on the interviewer's
 * sentences and on short ones that ask by their form (asSaid). English gets
 * the full treatment (fillers, stutters, sentence boundaries of unpunctuated ASR output, questions,
 * turns, tone); German, French, Spanish, Japanese and Chinese get their fillers and question
 * marks; any other language gets whitespace and punctuation tidied. It only deletes words, adds
 * punctuation, changes letter case, adds labels and (for a tone) rewrites contractions. It never
 * throws for any input: a section it cannot handle comes back tidied but otherwise untouched.
 */

import { isSpacelessLanguage } from "@kikitori/shared/language";
import { speakerLabels } from "@kikitori/shared/server";
import { cleanSpaceless, removeFillers, removeRepeats } from "./clean.ts";
import { finishSentence, type Sentence } from "./finish.ts";
import { detectFormat, type ExplicitTurn, type FormatContext, parseLabelledText, type TurnFormat } from "./format.ts";
import { type Person, peopleOf } from "./names-in-text.ts";
import {
  type CorrectionEngine,
  type CorrectionInput,
  type CorrectionResult,
  type CorrectionTurn,
  type CorrectOptions,
  DEFAULT_SECTION_CHARS,
  type Role,
} from "./port.ts";
import { detectTextLang, type TextLang } from "./rules.ts";
import { splitIntoSections } from "./sections.ts";
import { chunkByEnders, isPunctuated, splitRun } from "./segment.ts";
import { segmentSpaceless } from "./spaceless.ts";
import { labelOf } from "./speaker-turns.ts";
import { runResumableSteps } from "./steps.ts";
import { stripAsrArtifacts, tokenize } from "./tokens.ts";
import { applyTone } from "./tone.ts";
import { assignTurns, type FlowState, INITIAL_STATE, kindOf, paragraphs, type Turn } from "./turns.ts";

/** Monologue recordings: never split into questions and answers. */
const MONOLOGUE_TYPES = new Set(["voicemail"]);

/** Everything about a transcript the sections share. */
export interface DocumentPlan {
  lang: TextLang;
  spaceless: boolean;
  punctuated: boolean;
  monologue: boolean;
  format: TurnFormat;
  ctx: FormatContext;
  names: Map<string, string>;
  people: Person[];
  tone: CorrectionInput["tone"];
  locale: string;
  /** Sentence starts in the transcript: where sections had better begin. */
  breakPoints: number[];
}

function nameWords(names: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const name of names) {
    for (const word of name.split(/\s+/)) {
      if (!/^\p{L}[\p{L}'’-]+$/u.test(word)) continue;
      const spelled = word === word.toLowerCase() ? word[0].toUpperCase() + word.slice(1) : word;
      map.set(word.toLowerCase(), spelled);
    }
  }
  return map;
}

/** The transcript's rule family and the turn format (cheap: no sentence analysis). */
export function formatFor(input: CorrectionInput): {
  lang: TextLang;
  spaceless: boolean;
  ctx: FormatContext;
  format: TurnFormat;
  ui: string;
} {
  const ui = (input.language || "en").toLowerCase().split(/[-_]/)[0];
  const lang = detectTextLang(input.transcript ?? "", ui);
  const spaceless = isSpacelessLanguage(lang);
  const ctx: FormatContext = {
    interviewer: (input.interviewer ?? "").trim(),
    interviewee: (input.interviewee ?? "").trim(),
    defaults: input.labels ?? speakerLabels(ui),
    spaceless,
  };
  return { lang, spaceless, ctx, format: detectFormat(input.interviewExample ?? "", ctx), ui };
}

export function planDocument(input: CorrectionInput): DocumentPlan {
  const transcript = input.transcript ?? "";
  const { lang, spaceless, ctx, format, ui } = formatFor(input);
  const plan: DocumentPlan = {
    lang,
    spaceless,
    punctuated: isPunctuated(transcript, lang),
    monologue: false,
    format,
    ctx,
    names: nameWords([ctx.interviewer, ctx.interviewee]),
    people: peopleOf([
      ["interviewer", ctx.interviewer],
      ["interviewee", ctx.interviewee],
    ]),
    tone: input.tone ?? null,
    locale: ui,
    breakPoints: [],
  };
  let sentences: Sentence[] = [];
  try {
    sentences = transcript.trim() ? sentencesOf(stripAsrArtifacts(transcript), plan) : [];
  } catch {
    sentences = [];
  }
  plan.breakPoints = sentences.map((s) => s.at).filter((at): at is number => typeof at === "number");
  const asks = sentences.filter((s) => s.question || s.prompt || s.cue === "interviewer" || s.cue === "closing").length;
  plan.monologue = MONOLOGUE_TYPES.has(input.fileType) || asks < (input.fileType === "video" ? 2 : 1);
  return plan;
}

/** Clean, split and punctuate one paragraph of running text. */
export function sentencesOf(text: string, plan: DocumentPlan): Sentence[] {
  const nfc = text.normalize("NFC");
  const normalized = nfc.length === text.length ? nfc : text;
  if (plan.lang === "ja" || plan.lang === "zh")
    return segmentSpaceless(cleanSpaceless(normalized, plan.lang), plan.lang);
  const out: Sentence[] = [];
  const finish = { lang: plan.lang, names: plan.names, people: plan.people, locale: plan.locale };
  for (let chunk of chunkByEnders(tokenize(normalized))) {
    chunk = removeRepeats(removeFillers(chunk, plan.lang), plan.lang);
    const pieces = plan.punctuated ? [chunk] : splitRun(chunk, plan.lang, plan.people);
    for (const piece of pieces) {
      const s = finishSentence(piece, finish);
      if (s) out.push(s);
    }
  }
  return out;
}

/** A short question whose form asks by itself: an auxiliary or question word, then a pronoun subject. */
const EN_PLAIN_QUESTION =
  /^(?:(?:and|so|but|well|oh)\s+)?(?:(?:what|how|why|when|where|who|which)\s+)?(?:do|does|did|is|are|was|were|can|could|would|will|should|have|has|am|don't|didn't|isn't|aren't|wasn't|can't|won't)\s+(?:i|you|we|they|he|she|it|that|this|there)\b/;
const MAX_GUESSED_QUESTION_WORDS = 6;

/**
 * A sentence as its speaker said it. The rules' guessed question mark stays on the interviewer's
 * lines; on anyone else's only for a short sentence that is a question by its form ("Do you know
 * it?", "What did I do?"): a garbled or declarative answer ends as a statement, never with a "?"
 * the speaker did not ask. Japanese and Chinese questions are marked by a final particle (か, 吗,
 * 呢), which is what was said, so their question mark stays.
 */
function asSaid(s: Sentence, role: Role, lang: TextLang): string {
  if (!s.guessedQuestion || role === "interviewer" || asksByForm(s.text, lang)) return s.text;
  return s.text.replace(/^(\P{L}*)¿/u, "$1").replace(/\?(["'”’)\]]*)$/, ".$1");
}

/** Whether a sentence is a question by its own form (see asSaid), whatever its punctuation. */
export function asksByForm(sentence: string, lang: TextLang): boolean {
  if (lang === "ja") return /か[？?。]?[」』）)]*$/.test(sentence.trim());
  if (lang === "zh") return /[吗呢][？?。]?[」』）)]*$/.test(sentence.trim());
  const words =
    sentence
      .toLowerCase()
      .replace(/’/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
  if (words.length === 0 || words.length > MAX_GUESSED_QUESTION_WORDS) return false;
  return lang !== "en" || EN_PLAIN_QUESTION.test(words.join(" "));
}

function renderTurn(turn: Turn, plan: DocumentPlan, withLabel: boolean): string {
  const joiner = plan.spaceless ? "" : " ";
  const role: Role = turn.role ?? "interviewee";
  const maxChars = plan.spaceless ? 250 : 600;
  const paras = turn.paragraphs
    .flatMap((p) => paragraphs(p, 5, maxChars))
    .map((p) => p.map((s) => applyTone(asSaid(s, role, plan.lang), plan.tone, plan.lang, role)).join(joiner))
    .filter(Boolean);
  if (paras.length === 0) return "";
  if (withLabel) {
    const label = turn.label
      ? plan.format.template.replace("{L}", turn.label)
      : role === "interviewer"
        ? plan.format.interviewerLabel
        : plan.format.intervieweeLabel;
    paras[0] = `${label}${plan.format.gap}${paras[0]}`;
  }
  return paras.join(plan.format.separator);
}

/** Turns of one section's text, from its own labels when it has any, else by question detection. */
function turnsOf(text: string, plan: DocumentPlan, state: FlowState): { turns: Turn[]; state: FlowState } {
  const explicit: ExplicitTurn[] = parseLabelledText(text, plan.format, plan.ctx) ?? [
    { role: null, marked: false, paragraphs: [text] },
  ];
  const turns: Turn[] = [];
  let st = state;
  for (const block of explicit) {
    const paras = block.paragraphs.map((p) => sentencesOf(p, plan)).filter((p) => p.length > 0);
    const all = paras.flat();
    if (block.marked) {
      if (all.length === 0) continue;
      // Unnamed marked turns (dashes) alternate; the first one asks if it has a question.
      const previous = turns.at(-1)?.role ?? st.role;
      const asks = all.some((s) => s.question || s.prompt);
      const role: Role | null = block.label
        ? null
        : (block.role ??
          (previous
            ? previous === "interviewer"
              ? "interviewee"
              : "interviewer"
            : asks
              ? "interviewer"
              : "interviewee"));
      turns.push({ role, label: block.label, paragraphs: paras, marked: true });
      st = { role: role ?? st.role, lastKind: kindOf(all[all.length - 1]), started: true };
      continue;
    }
    if (block.paragraphs.length > 1 && st.started && st.role) {
      // Unlabelled paragraphs after a label: more of the same speaker's turn.
      turns.push({ role: st.role, paragraphs: paras, marked: false });
      st = { ...st, lastKind: all.length ? kindOf(all[all.length - 1]) : st.lastKind };
      continue;
    }
    const assigned = assignTurns(all, st, plan.monologue);
    turns.push(...assigned.turns);
    st = assigned.state;
  }
  return { turns, state: st };
}

/** Corrects one section; `state` is where the previous section left off. Never throws. */
export function correctSection(text: string, plan: DocumentPlan, state: FlowState): { text: string; state: FlowState } {
  if (!text.trim()) return { text: "", state };
  try {
    const cleaned = stripAsrArtifacts(text);
    const { turns, state: next } = turnsOf(cleaned, plan, state);
    const rendered: string[] = [];
    turns.forEach((turn, i) => {
      const continues = i === 0 && state.started && !turn.marked && !turn.label && turn.role === state.role;
      const out = renderTurn(turn, plan, !continues);
      if (out) rendered.push(out);
    });
    return { text: rendered.join(plan.format.separator), state: next };
  } catch {
    const tidy = text.replace(/\s+/g, plan.spaceless ? "" : " ").trim();
    const withLabel =
      state.started && state.role === "interviewee" ? tidy : `${plan.format.intervieweeLabel}${plan.format.gap}${tidy}`;
    return { text: withLabel, state: { role: "interviewee", lastKind: "plain", started: true } };
  }
}

/** Where a section that was corrected earlier (resumed) leaves the flow. */
export function stateAfter(corrected: string, plan: DocumentPlan, state: FlowState): FlowState {
  try {
    const turns = parseLabelledText(corrected, plan.format, plan.ctx);
    const trimmed = corrected.trim();
    const lastKind = /[?？]["'”’)\]」]*$/.test(trimmed) ? "question" : "plain";
    const last = turns?.filter((t) => t.role || t.label).at(-1);
    const role = last?.role ?? state.role ?? "interviewee";
    return { role, lastKind, started: true };
  } catch {
    return { ...state, started: true };
  }
}

export interface OfflineEngineOptions {
  /** Longest section in characters (default 6000). */
  sectionChars?: number;
}

export class OfflineCorrectionEngine implements CorrectionEngine {
  readonly name = "offline";
  private readonly sectionChars: number;

  constructor(opts: OfflineEngineOptions = {}) {
    this.sectionChars = Math.max(200, opts.sectionChars ?? DEFAULT_SECTION_CHARS);
  }

  async correct(input: CorrectionInput, opts: CorrectOptions = {}): Promise<CorrectionResult> {
    if (input.turns && input.turns.length > 0) return this.correctHeardTurns(input, input.turns, opts);
    const transcript = input.transcript ?? "";
    const plan = planDocument(input);
    const sections = splitIntoSections(transcript, { maxChars: this.sectionChars, breakPoints: plan.breakPoints });
    let state = INITIAL_STATE;
    const out = await runResumableSteps(
      {
        count: sections.length,
        kept: (_index, stored) => {
          state = stateAfter(stored, plan, state);
        },
        run: (index) => {
          const result = correctSection(sections[index].text, plan, state);
          state = result.state;
          return result.text;
        },
        yieldBetween: true,
      },
      opts,
    );
    return { text: joinSections(out, plan.format.separator), sections: out };
  }

  /**
   * Heard turns: each is corrected on its own and keeps its speaker; sections are runs of whole turns
   * (up to the section size), so resuming and progress work as for a flat transcript.
   */
  private async correctHeardTurns(
    input: CorrectionInput,
    turns: CorrectionTurn[],
    opts: CorrectOptions,
  ): Promise<CorrectionResult> {
    const plan = planDocument({ ...input, transcript: turns.map((t) => t.text).join(" ") });
    const sections: CorrectionTurn[][] = [];
    let size = 0;
    for (const t of turns) {
      if (sections.length === 0 || size + t.text.length > this.sectionChars) {
        sections.push([]);
        size = 0;
      }
      sections[sections.length - 1].push(t);
      size += t.text.length;
    }
    const out = await runResumableSteps(
      {
        count: sections.length,
        run: (index) =>
          sections[index]
            .map((t) => correctHeardTurn(t, plan))
            .filter(Boolean)
            .join(plan.format.separator),
        yieldBetween: true,
      },
      opts,
    );
    return { text: joinSections(out, plan.format.separator), sections: out };
  }
}

/**
 * A heard turn, corrected: its sentences cleaned and punctuated, its label that of its speaker (never
 * guessed from the words), its paragraphs kept under it. Never throws: a turn the rules cannot handle
 * comes back tidied.
 */
export function correctHeardTurn(turn: CorrectionTurn, plan: DocumentPlan): string {
  const label = labelOf(turn, plan.format);
  try {
    const sentences = sentencesOf(stripAsrArtifacts(turn.text), plan);
    const rendered = renderTurn(
      { role: turn.role ?? "interviewee", paragraphs: [sentences], marked: true },
      plan,
      false,
    );
    if (rendered) return `${label}${plan.format.gap}${rendered}`;
  } catch {
    // fall through to the tidy text
  }
  const tidy = turn.text.replace(/\s+/g, plan.spaceless ? "" : " ").trim();
  return tidy ? `${label}${plan.format.gap}${tidy}` : "";
}

/**
 * One speaker's words in clean verbatim, without a label: fillers, stutters, false starts and
 * repeated words removed, punctuation and casing added, no tone. "" when nothing is left.
 */
export function cleanVerbatimText(text: string, role: Role, plan: DocumentPlan): string {
  try {
    const sentences = sentencesOf(stripAsrArtifacts(text), plan);
    return renderTurn({ role, paragraphs: [sentences], marked: true }, { ...plan, tone: null }, false);
  } catch {
    return text.replace(/\s+/g, plan.spaceless ? "" : " ").trim();
  }
}

/** The full text: the non-empty section texts, joined like turns. */
export function joinSections(sections: string[], separator: string): string {
  return sections
    .map((s) => s.trim())
    .filter(Boolean)
    .join(separator);
}
