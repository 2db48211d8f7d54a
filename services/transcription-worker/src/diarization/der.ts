import type { SpeakerSpan } from "./port.ts";

/**
 * Diarization error rate, as NIST md-eval counts it: (missed speech + false alarm + speaker
 * confusion) / total reference speech, with a forgiveness collar (default 0.25 s) on each side of
 * every reference boundary, and hypothesis speakers mapped one-to-one to reference speakers so as to
 * maximise the time they agree (exhaustive over the small speaker counts of interviews). Overlapping
 * speech is not modelled (one speaker at a time on each side). Pure.
 */
export function diarizationErrorRate(
  reference: SpeakerSpan[],
  hypothesis: SpeakerSpan[],
  opts: { collar?: number; step?: number } = {},
): { der: number; missed: number; falseAlarm: number; confusion: number; total: number } {
  const collar = opts.collar ?? 0.25;
  const step = opts.step ?? 0.01;
  const end = Math.max(0, ...reference.map((s) => s.end), ...hypothesis.map((s) => s.end));
  const n = Math.ceil(end / step);
  const label = (spans: SpeakerSpan[]) => {
    const out = new Int32Array(n).fill(-1);
    for (const s of spans)
      for (let i = Math.floor(s.start / step); i < Math.min(n, Math.ceil(s.end / step)); i++) out[i] = s.speaker;
    return out;
  };
  const ref = label(reference);
  const hyp = label(hypothesis);
  const scored = new Uint8Array(n).fill(1);
  for (const s of reference) {
    for (const t of [s.start, s.end]) {
      for (let i = Math.max(0, Math.floor((t - collar) / step)); i < Math.min(n, Math.ceil((t + collar) / step)); i++)
        scored[i] = 0;
    }
  }
  const refIds = [...new Set(reference.map((s) => s.speaker))];
  const hypIds = [...new Set(hypothesis.map((s) => s.speaker))];
  // co[r][h]: scored time where reference r and hypothesis h speak together.
  const co = new Map<string, number>();
  let total = 0;
  let missed = 0;
  let falseAlarm = 0;
  for (let i = 0; i < n; i++) {
    if (!scored[i]) continue;
    if (ref[i] >= 0) total++;
    if (ref[i] >= 0 && hyp[i] < 0) missed++;
    if (ref[i] < 0 && hyp[i] >= 0) falseAlarm++;
    if (ref[i] >= 0 && hyp[i] >= 0) co.set(`${ref[i]}:${hyp[i]}`, (co.get(`${ref[i]}:${hyp[i]}`) ?? 0) + 1);
  }
  const both = [...co.values()].reduce((a, b) => a + b, 0);
  const best = bestMapping(refIds, hypIds, (r, h) => co.get(`${r}:${h}`) ?? 0);
  const confusion = both - best;
  const der = total > 0 ? (missed + falseAlarm + confusion) / total : 0;
  return {
    der,
    missed: missed * step,
    falseAlarm: falseAlarm * step,
    confusion: confusion * step,
    total: total * step,
  };
}

/** The largest total agreement of a one-to-one mapping of hypothesis speakers onto reference speakers. */
function bestMapping(refIds: number[], hypIds: number[], agree: (r: number, h: number) => number): number {
  let best = 0;
  const used = new Set<number>();
  const walk = (j: number, sum: number) => {
    if (j === hypIds.length) {
      best = Math.max(best, sum);
      return;
    }
    walk(j + 1, sum); // this hypothesis speaker maps to nobody
    for (const r of refIds) {
      if (used.has(r)) continue;
      used.add(r);
      walk(j + 1, sum + agree(r, hypIds[j]));
      used.delete(r);
    }
  };
  walk(0, 0);
  return best;
}

/** Speaker turns: maximal runs of one speaker, across pauses. Pure. */
export function turnCount(spans: SpeakerSpan[]): number {
  let turns = 0;
  let last = -1;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.speaker !== last) turns++;
    last = s.speaker;
  }
  return turns;
}
