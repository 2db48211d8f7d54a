/**
 * Speaker turns from diarization: the transcript's timed segments grouped into
 * turns by speaker, who is the interviewer decided by a documented rule, and the label each turn
 * gets. Used by both correction engines and by renaming. Pure.
 */
import type { JobSpeaker, SpeakerTurn } from "@kikitori/shared";
import type { TurnFormat } from "./format.ts";
import type { CorrectionTurn } from "./port.ts";

const QUESTION_MARK = /[?？؟\u037e]\s*["'”’»」)]*\s*$/;
const QUESTION_ANYWHERE = /[?？؟]/;
/** Unpunctuated English (pocketsphinx): a turn that opens like a question. */
const EN_QUESTION_START =
  /^(so\s+|and\s+|but\s+|well\s+)?(what|why|how|when|where|who|whom|which|do|does|did|is|are|was|were|can|could|would|will|should|have|has|tell me|could you)\b/i;

/** Whether a turn asks something: a question mark, or (unpunctuated text) a question's opening words. */
export function asks(text: string): boolean {
  const t = text.trim();
  if (QUESTION_MARK.test(t) || QUESTION_ANYWHERE.test(t)) return true;
  return !/[.!?。！？]/.test(t) && EN_QUESTION_START.test(t);
}

/**
 * The speakers and their parts. The rule (README, "Who said what"): the interviewer is the speaker
 * with the most turns that ask something; on a tie, or when nobody asks, the one of those who spoke
 * first. The interviewee is the speaker with the most speaking time among the others. Names come from
 * the upload's fields (else the localized "Interviewer"/"Interviewee"); any further speaker is
 * "Speaker 3", "Speaker 4", … in order of first appearance. One speaker heard: the interviewee.
 */
export function decideSpeakers(
  turns: SpeakerTurn[],
  names: { interviewer: string; interviewee: string; other: (n: number) => string },
): JobSpeaker[] {
  const ids = [...new Set(turns.map((t) => t.speaker))];
  if (ids.length === 0) return [];
  if (ids.length === 1) return [{ id: ids[0], name: names.interviewee, role: "interviewee" }];
  const questions = new Map(ids.map((id) => [id, 0]));
  const time = new Map(ids.map((id) => [id, 0]));
  for (const t of turns) {
    if (asks(t.text)) questions.set(t.speaker, (questions.get(t.speaker) ?? 0) + 1);
    time.set(t.speaker, (time.get(t.speaker) ?? 0) + (t.end - t.start));
  }
  // ids are in order of first appearance: reduce keeps the earlier speaker on a tie.
  const interviewer = ids.reduce((best, id) => ((questions.get(id) ?? 0) > (questions.get(best) ?? 0) ? id : best));
  const rest = ids.filter((id) => id !== interviewer);
  const interviewee = rest.reduce((best, id) => ((time.get(id) ?? 0) > (time.get(best) ?? 0) ? id : best));
  let n = 3;
  return ids.map((id): JobSpeaker => {
    if (id === interviewer) return { id, name: names.interviewer, role: "interviewer" };
    if (id === interviewee) return { id, name: names.interviewee, role: "interviewee" };
    return { id, name: names.other(n++), role: "other" };
  });
}

/** The turns as the correction engines take them: each with its speaker's part and name. */
export function correctionTurns(turns: SpeakerTurn[], speakers: JobSpeaker[]): CorrectionTurn[] {
  const byId = new Map(speakers.map((s) => [s.id, s]));
  return turns.map((t) => {
    const s = byId.get(t.speaker);
    return { ...t, role: s?.role === "other" || !s ? null : s.role, name: s?.name ?? "" };
  });
}

/** The label a heard turn is drawn with in `format` (its role's label; a further speaker's name in the template). */
export function labelOf(turn: Pick<CorrectionTurn, "role" | "name">, format: TurnFormat): string {
  if (turn.role === "interviewer") return format.interviewerLabel;
  if (turn.role === "interviewee") return format.intervieweeLabel;
  return format.template.replace("{L}", turn.name);
}

/** The turns as labelled text ("Label: text", turns apart): what the language model is given. */
export function labelledTranscript(turns: CorrectionTurn[], format: TurnFormat): string {
  return turns.map((t) => `${labelOf(t, format)}${format.gap}${t.text.trim()}`).join(format.separator);
}
