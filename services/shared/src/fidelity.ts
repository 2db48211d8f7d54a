/**
 * The fidelity view of a job: how far each sentence of the interview text can be traced back to what
 * was said, and by whom.
 *
 * - Units: the language toolkit's words (hesitation fillers left out); in text without spaces (ja, zh,
 *   th) each letter of those words, so a word cut differently on each side still matches.
 * - Alignment: every interview sentence is aligned to the stretch of the timed transcript it comes
 *   from, in order. Candidate stretches come from the sentence's rarest units (where they occur, on
 *   the same diagonal); each is scored by a weighted longest common subsequence inside a window a
 *   little longer than the sentence; a chain of candidates that only moves forward through the
 *   transcript is chosen by dynamic programming (most matched weight, an unmatched unit costing half).
 *   Sentences left without a stretch are then looked for in the gap between their neighbours' stretches.
 *   So a sentence made of words said somewhere else finds no stretch where it stands.
 * - Per sentence: its stretch (seconds, when the transcript is timed), the speaker heard there (when
 *   segments carry speakers) and a support score: the share of its weight matched in that stretch
 *   (content words weigh 2, others 1; an inflected form counts 0.7).
 * - Flags: `invented` (support below 0.5, or no stretch), `misattributed` (the turn's label names
 *   another speaker than the one heard), `reworded` (supported, but words the stretch does not have —
 *   fillers, stutters, punctuation and casing never count, left-out words neither), `dropped`
 *   (transcript passages whose content mostly reached no sentence).
 * - The figure: the share of interview sentences supported by their stretch.
 * - A word-level diff for reading side by side, along the alignment: each sentence against its stretch
 *   (jsdiff), transcript words between stretches removed, sentences without a stretch added.
 */
import { alignSentences, isContent, type Match, nearestStretch, toUnits, type Unit } from "./fidelity-align.ts";
import { type DiffPiece, stitchDiff } from "./fidelity-diff.ts";
import type { FidelityOptions, FidelityReport } from "./fidelity-schema.ts";
import { applyGlossary, type GlossaryFix } from "./glossary.ts";
import { isSpacelessLanguage, splitSentences, tokenize, type WordToken } from "./language/index.ts";

export * from "./fidelity-schema.ts";

/** Hesitations in the languages Whisper writes them in; never content, never compared. */
const FILLERS = new Set(
  "um umm uh uhh uhm er erm ah hmm hm mm mhm eh äh ähm euh euhm eeh えー えっと えーと えーっと あのー うーん 嗯 呃 那个 额 음 어".split(
    " ",
  ),
);
/** A sentence is supported when this share of its weight is matched in its stretch. */
export const SUPPORTED = 0.5;

/** Turn labels ("Anna Berg:" at a line start, after any decoration) with the name they give. */
function labelRanges(text: string, names: string[]): Array<{ start: number; end: number; name: string }> {
  const out: Array<{ start: number; end: number; name: string }> = [];
  const clean = [...new Set(names.map((n) => n.trim()).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!clean.length) return out;
  const escaped = clean.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`^[ \\t>*_—–-]*(${escaped.join("|")})[ \\t*_]*[:：][ \\t*_]*`, "gmu");
  for (const m of text.matchAll(re)) {
    const start = m.index ?? 0;
    out.push({ start, end: start + m[0].length, name: m[1] });
  }
  return out;
}

interface Passage {
  text: string;
  start: number | null;
  end: number | null;
  speaker: number | null;
  /** Its words' range in the transcript's word list. */
  tokFrom: number;
  tokTo: number;
}

/**
 * The report, with the job's glossary applied to the transcript first (applyGlossary): a term the
 * interview spells as the glossary does counts as the word heard, not as a changed or invented one;
 * those places are listed in glossaryFixes.
 */
export function fidelityReport(raw: string, corrected: string | null, opts: FidelityOptions): FidelityReport {
  const terms = opts.glossary ?? [];
  if (!terms.length || corrected === null) return alignedReport(raw, corrected, opts);
  const fixes: GlossaryFix[] = [];
  const fix = (text: string, keep: boolean) => {
    const r = applyGlossary(text, terms, opts.language);
    if (keep) fixes.push(...r.fixes);
    return r.text;
  };
  const segments = opts.segments?.map((s) => ({ ...s, text: fix(s.text, true) }));
  const report = alignedReport(fix(raw, !segments), corrected, { ...opts, segments });
  const counted = new Map<string, { from: string; to: string; count: number }>();
  for (const f of fixes) {
    if (!corrected.includes(f.to)) continue;
    const key = `${f.from}\u0000${f.to}`;
    const c = counted.get(key) ?? { from: f.from, to: f.to, count: 0 };
    c.count++;
    counted.set(key, c);
  }
  return { ...report, glossaryFixes: [...counted.values()] };
}

function alignedReport(raw: string, corrected: string | null, opts: FidelityOptions): FidelityReport {
  if (corrected === null) return { figure: null, ...emptyReport() };
  const spaceless = isSpacelessLanguage(opts.language);
  const words = createWords();
  const transcript = readTranscript(raw, opts, spaceless, words.intern);
  const sentences = readInterview(corrected, opts, spaceless, words.intern);
  // Each sentence's stretch of the transcript (null: none found).
  const chosen = alignSentences(transcript.tUnits, words.names, spaceless, sentences);
  const report = emptyReport();
  const covered = flagSentences({
    transcript,
    sentences,
    chosen,
    spaceless,
    speakerName: new Map((opts.speakers ?? []).map((s) => [s.id, s.name])),
    nameToId: new Map((opts.speakers ?? []).map((s) => [s.name.trim(), s.id])),
    covered: new Uint8Array(transcript.tUnits.length),
    report,
  });
  report.sentenceCount = sentences.length;
  report.dropped.push(...droppedPassages(transcript, covered));
  const diff = stitchDiff(diffPieces(transcript, sentences, chosen), spaceless ? "" : " ", opts.diffTimeoutMs ?? 500);
  const figure =
    report.sentenceCount === 0 ? 1 : Math.round((report.supportedCount / report.sentenceCount) * 1000) / 1000;
  return { figure, ...report, diff };
}

/** A report with nothing found yet; `diff` stands among the keys so every report lists them in one order. */
function emptyReport(): Omit<FidelityReport, "figure"> {
  return {
    sentenceCount: 0,
    supportedCount: 0,
    contentWords: 0,
    tracedWords: 0,
    sentences: [],
    diff: null,
    invented: [],
    misattributed: [],
    reworded: [],
    dropped: [],
    glossaryFixes: [],
  };
}

/** Words as numbers, so units compare keys rather than strings; `names[key]` is the word a key stands for. */
interface Words {
  names: string[];
  intern: (s: string) => number;
}

function createWords(): Words {
  const keys = new Map<string, number>();
  const names: string[] = [];
  const intern = (s: string) => {
    let k = keys.get(s);
    if (k === undefined) {
      k = names.length;
      keys.set(s, k);
      names.push(s);
    }
    return k;
  };
  return { names, intern };
}

/** The transcript as the check reads it: its passages, their words and the units of those words. */
interface Transcript {
  passages: Passage[];
  /** The compared words (fillers left out), and the passage each one is in. */
  tTokens: WordToken[];
  tokPassage: number[];
  /** Every word of the transcript, fillers too (for the diff), and where each compared word is in it. */
  tAll: WordToken[];
  allIndex: number[];
  tUnits: Unit[];
}

/** The transcript: its passages (timed segments, else its sentences) and their words. */
function readTranscript(
  raw: string,
  opts: FidelityOptions,
  spaceless: boolean,
  intern: (s: string) => number,
): Transcript {
  const { language } = opts;
  const rawPassages =
    opts.segments?.map((s) => ({
      text: s.text.trim(),
      start: s.start as number | null,
      end: (s.end ?? s.start) as number | null,
      speaker: s.speaker ?? null,
    })) ??
    splitSentences(raw, language, Number.POSITIVE_INFINITY).map((s) => ({
      text: s.text,
      start: null,
      end: null,
      speaker: null,
    }));
  const passages: Passage[] = [];
  const tTokens: WordToken[] = [];
  const tokPassage: number[] = [];
  const tAll: WordToken[] = [];
  const allIndex: number[] = [];
  for (const p of rawPassages) {
    const tokFrom = tTokens.length;
    for (const t of tokenize(p.text, language)) {
      tAll.push(t);
      if (FILLERS.has(t.norm)) continue;
      allIndex.push(tAll.length - 1);
      tTokens.push(t);
      tokPassage.push(passages.length);
    }
    passages.push({ ...p, tokFrom, tokTo: tTokens.length });
  }
  return { passages, tTokens, tokPassage, tAll, allIndex, tUnits: toUnits(tTokens, spaceless, intern) };
}

/** An interview sentence: its own text (without a turn label), where it stands, its turn's label and its words. */
interface Sentence {
  text: string;
  start: number;
  end: number;
  label: string | null;
  tokens: WordToken[];
  /** Its words with fillers (for the diff). */
  all: WordToken[];
  units: Unit[];
  /** The weight of all its units. */
  total: number;
}

/**
 * The interview: sentences, the label of the turn each stands in, and their units. Sentences as the
 * toolkit cuts them (a run-on sentence in pieces of at most 320 characters, so one alignment stays
 * small); a sentence without words is left out.
 */
function readInterview(
  corrected: string,
  opts: FidelityOptions,
  spaceless: boolean,
  intern: (s: string) => number,
): Sentence[] {
  const { language } = opts;
  const labels = labelRanges(corrected, [...(opts.speakerNames ?? []), ...(opts.speakers ?? []).map((s) => s.name)]);
  const cTokensAll = tokenize(corrected, language);
  const sentences: Sentence[] = [];
  let k = 0;
  let li = -1;
  let lp = 0;
  for (const s of splitSentences(corrected, language)) {
    const tokens: WordToken[] = [];
    const all: WordToken[] = [];
    for (; k < cTokensAll.length && cTokensAll[k].start < s.end; k++) {
      const t = cTokensAll[k];
      // A label's own words are not the speaker's words.
      while (lp < labels.length && labels[lp].end <= t.start) lp++;
      if (lp < labels.length && labels[lp].start <= t.start && t.end <= labels[lp].end) continue;
      all.push(t);
      if (!FILLERS.has(t.norm)) tokens.push(t);
    }
    while (li + 1 < labels.length && labels[li + 1].start < s.end) li++;
    // The sentence's own text, without a label it starts with.
    let start = s.start;
    const lab = li >= 0 ? labels[li] : null;
    if (lab && lab.start >= s.start && lab.end > start) start = Math.min(lab.end, s.end);
    const text = corrected.slice(start, s.end).trim();
    start = start + corrected.slice(start, s.end).indexOf(text);
    const units = toUnits(tokens, spaceless, intern);
    if (!units.length) continue;
    sentences.push({
      text,
      start,
      end: start + text.length,
      label: lab?.name ?? null,
      tokens,
      all,
      units,
      total: units.reduce((a, u) => a + u.weight, 0),
    });
  }
  return sentences;
}

type Span = { startSeconds: number | null; endSeconds: number | null };

/** What flagging the sentences reads, and the report and coverage it fills in. */
interface Flagging {
  transcript: Transcript;
  sentences: Sentence[];
  /** Each sentence's stretch of the transcript (null: none found). */
  chosen: Array<Match | null>;
  spaceless: boolean;
  /** Speaker names by the ids the segments carry, and back (for `misattributed`). */
  speakerName: Map<number, string>;
  nameToId: Map<string, number>;
  /** Per transcript unit, 1 once a supported sentence matched it: what `dropped` looks at. */
  covered: Uint8Array;
  report: Omit<FidelityReport, "figure">;
}

/** Per sentence: stretch, speaker heard, support; the flags. Returns the transcript units covered. */
function flagSentences(f: Flagging): Uint8Array {
  for (let si = 0; si < f.sentences.length; si++) flagSentence(f, si);
  return f.covered;
}

function flagSentence(f: Flagging, si: number): void {
  const { report, transcript } = f;
  const s = f.sentences[si];
  const m = f.chosen[si];
  const support = m ? Math.round((m.matched / s.total) * 1000) / 1000 : 0;
  const supported = m !== null && support >= SUPPORTED;
  const tokenOk = matchedTokens(s, m);
  for (const [i, t] of s.tokens.entries()) {
    if (!isContent(t)) continue;
    report.contentWords++;
    if (tokenOk[i] && m) report.tracedWords++;
  }
  const unmatched = s.tokens.filter((_, i) => !tokenOk[i]);
  const unmatchedContent = unmatched.filter(isContent);
  const words = [...new Set((unmatchedContent.length ? unmatchedContent : unmatched).map((t) => t.surface))];
  const marks = unmatched.map((t): [number, number] => [t.start - s.start, t.end - s.start]);
  const base = { sentence: s.text, start: s.start, end: s.end };

  const span: Span = m ? seconds(transcript, m.from, m.to) : { startSeconds: null, endSeconds: null };
  const heard = m ? heardSpeaker(transcript, s, m) : null;
  if (m && supported) for (const p of m.pairs) if (p >= 0) f.covered[p] = 1;
  report.sentences.push({
    start: s.start,
    end: s.end,
    ...span,
    speaker: heard === null ? null : (f.speakerName.get(heard) ?? null),
    support,
  });
  if (supported) report.supportedCount++;
  else {
    // Where it stands: between the stretches of its neighbours.
    const where = m ? span : gapSpan(f, si);
    report.invented.push({ ...base, ...where, words, marks, support });
    return;
  }
  const labelled = s.label === null ? undefined : f.nameToId.get(s.label.trim());
  if (labelled !== undefined && heard !== null && labelled !== heard) {
    report.misattributed.push({
      ...base,
      ...span,
      label: s.label ?? "",
      heard: f.speakerName.get(heard) ?? String(heard),
    });
  }
  if (unmatched.length && m) {
    const heardText = transcript.tTokens
      .slice(transcript.tUnits[m.from].tok, transcript.tUnits[m.to].tok + 1)
      .map((t) => t.surface)
      .join(f.spaceless ? "" : " ");
    report.reworded.push({ ...base, ...span, words, marks, heardText, support });
  }
}

/** Per word of the sentence, false when one of its units was matched badly or not at all. */
function matchedTokens(s: Sentence, m: Match | null): boolean[] {
  const tokenOk = s.tokens.map(() => true);
  s.units.forEach((u, i) => {
    if (!m || m.pairs[i] < 0 || m.sims[i] < 1) tokenOk[u.tok] = false;
  });
  return tokenOk;
}

/** The speaker heard most in the stretch, by the weight of the units matched there (null: no speakers). */
function heardSpeaker(t: Transcript, s: Sentence, m: Match): number | null {
  const bySpeaker = new Map<number, number>();
  m.pairs.forEach((p, i) => {
    if (p < 0) return;
    const sp = t.passages[t.tokPassage[t.tUnits[p].tok]].speaker;
    if (sp !== null) bySpeaker.set(sp, (bySpeaker.get(sp) ?? 0) + s.units[i].weight);
  });
  return [...bySpeaker.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/** From the start of the passage of one transcript unit to the end of another's (null when not timed). */
function seconds(t: Transcript, fromUnit: number, toUnit: number): Span {
  const a = t.passages[t.tokPassage[t.tUnits[fromUnit].tok]];
  const b = t.passages[t.tokPassage[t.tUnits[toUnit].tok]];
  return { startSeconds: a.start, endSeconds: b.end };
}

/** Where a sentence without a stretch stands: from the end of the stretch before it to the start of the next. */
function gapSpan(f: Flagging, si: number): Span {
  const prev = nearestStretch(f.chosen, si, -1);
  const next = nearestStretch(f.chosen, si, 1);
  let startSeconds = prev ? seconds(f.transcript, prev.from, prev.to).endSeconds : null;
  let endSeconds = next ? seconds(f.transcript, next.from, next.to).startSeconds : null;
  if (startSeconds === null) startSeconds = f.transcript.passages.find((p) => p.start !== null)?.start ?? null;
  if (endSeconds === null && startSeconds !== null) endSeconds = startSeconds;
  return { startSeconds, endSeconds };
}

/**
 * Dropped: passages whose content mostly reached no supported sentence. A passage with fewer than two
 * content words is never flagged (a "yes" or a name alone says too little).
 */
function droppedPassages(t: Transcript, covered: Uint8Array): FidelityReport["dropped"] {
  const { tUnits, tTokens } = t;
  const dropped: FidelityReport["dropped"] = [];
  let u = 0;
  for (const p of t.passages) {
    const content = new Map<number, { total: number; hit: number }>();
    for (; u < tUnits.length && tUnits[u].tok < p.tokTo; u++) {
      const tok = tTokens[tUnits[u].tok];
      if (!isContent(tok)) continue;
      const c = content.get(tUnits[u].tok) ?? { total: 0, hit: 0 };
      c.total++;
      c.hit += covered[u];
      content.set(tUnits[u].tok, c);
    }
    if (content.size < 2) continue;
    let total = 0;
    let hit = 0;
    const lost: string[] = [];
    for (const [tok, c] of content) {
      total += c.total;
      hit += c.hit;
      if (c.hit * 2 < c.total) lost.push(tTokens[tok].surface);
    }
    if (hit * 2 < total) {
      dropped.push({ text: p.text, startSeconds: p.start, endSeconds: p.end, words: [...new Set(lost)] });
    }
  }
  return dropped;
}

/**
 * The diff's pieces along the alignment: transcript words between stretches are removed, a sentence
 * without a stretch is added, and each sentence is paired with its own stretch.
 */
function diffPieces(t: Transcript, sentences: Sentence[], chosen: Array<Match | null>): DiffPiece[] {
  const { tAll, allIndex, tUnits } = t;
  const pieces: DiffPiece[] = [];
  let cursor = 0;
  sentences.forEach((s, si) => {
    const m = chosen[si];
    const own = s.all;
    if (!m) {
      pieces.push({ added: own });
      return;
    }
    // A stretch wholly behind where the diff has reached (the diff only moves forward): the sentence is added.
    const a = Math.max(cursor, allIndex[tUnits[m.from].tok]);
    const b = allIndex[tUnits[m.to].tok] + 1;
    if (b <= a) {
      pieces.push({ added: own });
      return;
    }
    pieces.push({ removed: tAll.slice(cursor, a) }, { pair: [tAll.slice(a, b), own] });
    cursor = b;
  });
  pieces.push({ removed: tAll.slice(cursor) });
  return pieces;
}
