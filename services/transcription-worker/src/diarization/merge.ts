import type { TranscriptSegment } from "@kikitori/shared";
import type { SpeakerSpan } from "./port.ts";

/** A speaker must hold at least this long and this share of a segment to split it off. */
const MIN_SPLIT_SECONDS = 0.6;
const MIN_SPLIT_SHARE = 0.15;

/** Seconds each speaker speaks inside [start, end], in order of appearance there. */
function runsIn(
  spans: SpeakerSpan[],
  start: number,
  end: number,
): Array<{ speaker: number; start: number; end: number }> {
  const runs: Array<{ speaker: number; start: number; end: number }> = [];
  for (const s of spans) {
    const a = Math.max(start, s.start);
    const b = Math.min(end, s.end);
    if (b <= a) continue;
    const last = runs.at(-1);
    if (last && last.speaker === s.speaker) last.end = b;
    else runs.push({ speaker: s.speaker, start: a, end: b });
  }
  return runs;
}

/** The speaker at time t: the span holding it, else the nearest one. */
export function speakerAt(spans: SpeakerSpan[], t: number): number {
  let best = spans[0];
  let bestD = Number.POSITIVE_INFINITY;
  for (const s of spans) {
    const d = t < s.start ? s.start - t : t > s.end ? t - s.end : 0;
    if (d < bestD) {
      bestD = d;
      best = s;
    }
  }
  return best?.speaker ?? 0;
}

const isSpaceless = (text: string) => !/\s/.test(text.trim()) && text.trim().length > 1;

/** Cuts text into parts proportional to `shares`, at word boundaries (characters for text without spaces). */
export function splitTextByShares(text: string, shares: number[]): string[] {
  const trimmed = text.trim();
  const spaceless = isSpaceless(trimmed);
  const units = spaceless ? Array.from(trimmed) : trimmed.split(/\s+/);
  const total = shares.reduce((a, b) => a + b, 0) || 1;
  const parts: string[] = [];
  let from = 0;
  let acc = 0;
  shares.forEach((share, i) => {
    acc += share;
    const to =
      i === shares.length - 1
        ? units.length
        : Math.max(from, Math.min(units.length, Math.round((acc / total) * units.length)));
    parts.push(units.slice(from, to).join(spaceless ? "" : " "));
    from = to;
  });
  return parts;
}

/**
 * Puts a speaker on every segment. A segment inside one speaker's time takes that speaker; one
 * that spans a change of speaker (each side holding at least 0.6 s and 15 % of it) is split: at the
 * word times where the engine gave them, else its text is cut in proportion to each speaker's time.
 * A segment over no speaker span (a gap) takes the nearest speaker. No text is ever dropped. Pure.
 */
export function assignSpeakers(segments: TranscriptSegment[], spans: SpeakerSpan[]): TranscriptSegment[] {
  if (spans.length === 0) return segments;
  const out: TranscriptSegment[] = [];
  for (const seg of segments) {
    const length = Math.max(1e-6, seg.end - seg.start);
    const runs = runsIn(spans, seg.start, seg.end).filter(
      (r) => r.end - r.start >= MIN_SPLIT_SECONDS && (r.end - r.start) / length >= MIN_SPLIT_SHARE,
    );
    // Runs of one speaker separated by a dropped short run join up again.
    const merged = runs.reduce<typeof runs>((acc, r) => {
      const last = acc.at(-1);
      if (last && last.speaker === r.speaker) last.end = r.end;
      else acc.push({ ...r });
      return acc;
    }, []);
    if (merged.length <= 1) {
      const main = runsIn(spans, seg.start, seg.end).sort((a, b) => b.end - b.start - (a.end - a.start))[0];
      out.push({ ...seg, speaker: main ? main.speaker : speakerAt(spans, (seg.start + seg.end) / 2) });
      continue;
    }
    // Split at the engine's own word times; spread (approximate) ones would only guess the same.
    if (seg.words && seg.words.length > 1 && !seg.words.some((w) => w.approximate)) {
      let current: TranscriptSegment | null = null;
      for (const w of seg.words) {
        const speaker = speakerAt(merged, (w.start + w.end) / 2);
        if (!current || current.speaker !== speaker) {
          if (current) out.push(current);
          current = { start: w.start, end: w.end, text: "", words: [], speaker };
        }
        current.end = w.end;
        current.words?.push(w);
      }
      if (current) out.push(current);
      for (const s of out) {
        if (s.words && !s.text)
          s.text = s.words
            .map((w) => w.text)
            .join(" ")
            .replace(/\s+([,.!?;:])/g, "$1")
            .trim();
      }
      continue;
    }
    // Boundaries between runs: halfway across the gap between them, the outer edges at the segment's.
    const bounds = merged.map((r, i) => ({
      speaker: r.speaker,
      start: i === 0 ? seg.start : (merged[i - 1].end + r.start) / 2,
      end: i === merged.length - 1 ? seg.end : (r.end + merged[i + 1].start) / 2,
    }));
    const texts = splitTextByShares(
      seg.text,
      bounds.map((b) => b.end - b.start),
    );
    bounds.forEach((b, i) => {
      if (texts[i]) out.push({ start: round2(b.start), end: round2(b.end), text: texts[i], speaker: b.speaker });
    });
  }
  return out;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
