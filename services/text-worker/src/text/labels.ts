/** Speaker labels written into a text (interviews, minutes): learnt so they are neither topics nor summary content. */

/**
 * Speaker labels of an interview or minutes: a short name followed by a colon at the start of a line
 * ("Interviewer:", "Dr. Lena Ortiz:", "佐藤：", "Frage:"), counted when the same name starts at least
 * two lines. Keyed by the offset of the line; the text includes the colon and following spaces.
 */
export function findSpeakerLabels(text: string): Map<number, { end: number; text: string; name: string }> {
  const found: Array<{ line: number; name: string; end: number; text: string }> = [];
  const re = /^([^\n:：]{1,40}?)([:：][ \t\u3000]*)/gmu;
  for (const m of text.matchAll(re)) {
    const name = m[1].trim();
    if (!name || /[.!?。！？]$/u.test(name) || /^[\d\s]+$/u.test(name) || name.split(/\s+/u).length > 4) continue;
    const line = m.index ?? 0;
    found.push({ line, name, end: line + m[0].length, text: m[0] });
  }
  const counts = new Map<string, number>();
  for (const f of found) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
  const out = new Map<number, { end: number; text: string; name: string }>();
  for (const f of found) {
    if ((counts.get(f.name) ?? 0) >= 2) out.set(f.line, { end: f.end, text: f.text, name: f.name });
  }
  return out;
}
