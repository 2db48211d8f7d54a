import type { JobSpeaker, TranscriptSegment } from "./speech.ts";
import type { RenameSpeakers } from "./transcription.ts";

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Renames speakers in an interview text: a label at the start of a line (after any decoration:
 * "**", "— ", "> ") that is exactly an old name, followed by a non-letter (":", "：", " —", "**"), is
 * replaced by its new name; all renames at once, so a swap (A→B, B→A) works. Words inside the turns
 * are never touched. Pure.
 */
export function relabelText(text: string, renames: Array<[from: string, to: string]>): string {
  const map = new Map(renames.filter(([a, b]) => a && a !== b));
  if (map.size === 0) return text;
  const names = [...map.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
  const re = new RegExp(`^([^\\p{L}\\p{N}\\n]*)(${names.join("|")})(?=[^\\p{L}\\p{N}]|$)`, "gmu");
  return text.replace(re, (_m, lead: string, name: string) => `${lead}${map.get(name) ?? name}`);
}

/**
 * A rename request applied to a job's speakers: the new speaker list and the label changes for the
 * text. `swapRoles` exchanges the interviewer's and the interviewee's parts and names (the voice the
 * rule took for the interviewer was the interviewee's). Throws a RangeError naming an unknown id.
 */
export function applySpeakerRename(
  speakers: JobSpeaker[],
  req: RenameSpeakers,
): { speakers: JobSpeaker[]; renames: Array<[string, string]> } {
  const next = speakers.map((s) => ({ ...s }));
  for (const { id } of req.names) {
    if (!next.some((s) => s.id === id)) throw new RangeError(`no speaker ${id} in this recording`);
  }
  if (req.swapRoles) {
    const a = next.find((s) => s.role === "interviewer");
    const b = next.find((s) => s.role === "interviewee");
    if (a && b) {
      [a.role, b.role] = [b.role, a.role];
      [a.name, b.name] = [b.name, a.name];
    }
  }
  for (const { id, name } of req.names) {
    const s = next.find((x) => x.id === id);
    if (s) s.name = name;
  }
  const renames = speakers
    .map((old): [string, string] => [old.name, next.find((s) => s.id === old.id)?.name ?? old.name])
    .filter(([a, b]) => a !== b);
  return { speakers: next, renames };
}

export interface SpeakerTurn {
  speaker: number;
  start: number;
  end: number;
  text: string;
}

/** Consecutive segments of one speaker joined into a turn, in time order. Segments without a speaker join the previous turn. */
export function turnsFromSegments(segments: TranscriptSegment[], spaceless: boolean): SpeakerTurn[] {
  const turns: SpeakerTurn[] = [];
  for (const s of segments) {
    const text = s.text.trim();
    if (!text) continue;
    const last = turns.at(-1);
    const speaker = s.speaker ?? last?.speaker ?? 0;
    if (last && last.speaker === speaker) {
      last.text += (spaceless ? "" : " ") + text;
      last.end = s.end;
    } else {
      turns.push({ speaker, start: s.start, end: s.end, text });
    }
  }
  return turns;
}
