/**
 * Who speaks when: a question (or a run of questions) opens an interviewer turn, the sentences
 * after it are the interviewee's answer. Monologues (voicemail, a talk) are one speaker's
 * paragraphs. The state carries over from one section to the next.
 */

import type { Sentence } from "./finish.ts";
import type { Role } from "./port.ts";
import { EN_ACKS } from "./rules.ts";

export type Kind = "question" | "prompt" | "interviewerCue" | "closing" | "intervieweeCue" | "plain";

export interface FlowState {
  /** Speaker of the last sentence so far (null before any). */
  role: Role | null;
  lastKind: Kind;
  /** False only at the very start of the transcript. */
  started: boolean;
}

export const INITIAL_STATE: FlowState = { role: null, lastKind: "plain", started: false };

export interface Turn {
  role: Role | null;
  /** Label of a third speaker (kept from the transcript's own labels). */
  label?: string;
  /** Sentences by paragraph. */
  paragraphs: Sentence[][];
  /** Explicitly marked in the source (label or dash): always drawn with its label. */
  marked: boolean;
}

export function kindOf(s: Sentence): Kind {
  if (s.question) return "question";
  if (s.prompt) return "prompt";
  if (s.cue === "interviewer") return "interviewerCue";
  if (s.cue === "closing") return "closing";
  if (s.cue === "interviewee") return "intervieweeCue";
  return "plain";
}

const RHETORICAL_NEXT = /^(?:well,?\s+)?(?:because|'cause|the answer is|it's because|that's because)\b/i;
const TAG_ONLY = /^(?:right|you know|see|isn't it|why not|how come)\?$/i;

/** "Great." "Wow, that's amazing." "That makes sense, David." */
export function isAck(s: Sentence): boolean {
  if (s.question || s.words > 6) return false;
  const parts = s.text
    .toLowerCase()
    .replace(/[.!?]+$/, "")
    .split(/,\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (s.addressed === "interviewee" && parts.length > 1) parts.pop();
  return parts.length > 0 && parts.every((p) => EN_ACKS.has(p));
}

function isRhetorical(s: Sentence, next: Sentence | undefined): boolean {
  return TAG_ONLY.test(s.text) || (!!next && RHETORICAL_NEXT.test(next.text));
}

/**
 * Assigns a speaker to each sentence of an unlabelled run and groups them into turns.
 * `monologue`: everything belongs to the interviewee.
 */
export function assignTurns(
  sentences: Sentence[],
  state: FlowState,
  monologue: boolean,
): { turns: Turn[]; state: FlowState } {
  if (sentences.length === 0) return { turns: [], state };
  if (monologue) {
    const last = sentences[sentences.length - 1];
    return {
      turns: [{ role: "interviewee", paragraphs: [sentences], marked: false }],
      state: { role: "interviewee", lastKind: kindOf(last), started: true },
    };
  }
  const firstAsk = sentences.findIndex((s) => s.question || s.prompt || s.cue === "interviewer" || s.cue === "closing");
  let role = state.role;
  let lastKind = state.lastKind;
  const roles: Role[] = [];
  sentences.forEach((s, i) => {
    const kind = kindOf(s);
    let r: Role;
    if (kind === "question" || kind === "prompt" || kind === "interviewerCue" || kind === "closing") {
      r =
        role === "interviewee" && kind === "question" && isRhetorical(s, sentences[i + 1])
          ? "interviewee"
          : "interviewer";
    } else if (kind === "intervieweeCue") r = "interviewee";
    else if (s.addressed) r = s.addressed === "interviewer" ? "interviewee" : "interviewer";
    else if (role === "interviewer")
      r = lastKind === "question" || lastKind === "prompt" || lastKind === "closing" ? "interviewee" : "interviewer";
    else if (role === "interviewee") r = "interviewee";
    else r = !state.started && firstAsk >= 0 && i < firstAsk && firstAsk <= 3 ? "interviewer" : "interviewee";
    roles.push(r);
    role = r;
    lastKind = kind;
  });
  // A short acknowledgement right before a question is the interviewer's ("Great. So what ...?").
  for (let i = 1; i < sentences.length - 1; i++) {
    if (roles[i] === "interviewee" && roles[i + 1] === "interviewer" && roles[i - 1] === "interviewee") {
      const next = sentences[i + 1];
      if ((next.question || next.cue === "closing") && isAck(sentences[i])) roles[i] = "interviewer";
    }
  }
  const turns: Turn[] = [];
  sentences.forEach((s, i) => {
    const last = turns.at(-1);
    if (last && last.role === roles[i]) last.paragraphs[0].push(s);
    else turns.push({ role: roles[i], paragraphs: [[s]], marked: false });
  });
  return { turns, state: { role, lastKind, started: true } };
}

/**
 * Groups a turn's sentences into paragraphs of at most `maxSentences` sentences or about
 * `maxChars` characters. Stable: regrouping one of its paragraphs leaves it whole.
 */
export function paragraphs(sentences: Sentence[], maxSentences: number, maxChars: number): Sentence[][] {
  const out: Sentence[][] = [];
  let cur: Sentence[] = [];
  let chars = 0;
  for (const s of sentences) {
    if (cur.length > 0 && (cur.length >= maxSentences || chars >= maxChars)) {
      out.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(s);
    chars += s.text.length + 1;
  }
  if (cur.length) out.push(cur);
  // No lone short sentence ("Bye.") as the last paragraph.
  if (out.length > 1) {
    const tail = out[out.length - 1];
    if (tail.length === 1 && tail[0].text.length < 60) out[out.length - 2].push(...out.pop()!);
  }
  return out;
}
