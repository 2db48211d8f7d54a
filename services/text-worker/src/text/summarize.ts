/**
 * The offline summariser: extractive. Sentences are ranked with TextRank, the sentences holding the
 * required phrases are taken first, then the best-ranked others until the desired length is reached,
 * and the result is put together in the text's order. The length is a hard check: the result lands
 * within ±10% of the desired length in characters (trimmed or extended by whole sentences, then by
 * words, and by characters only as a last resort, never inside a required phrase). The summary always
 * ends on a sentence boundary: its last piece is a whole sentence of the text (never a clause of a long
 * sentence, a cut sentence or a heading line), see finishOnSentence.
 */
import { charCount, nonEmptyPhrases } from "@kikitori/shared";
import {
  detectLanguage,
  type Span,
  sentenceJoiner,
  splitSentences,
  tokenize,
  wordBoundaries,
} from "@kikitori/shared/language";
import { endsSentence, lengthBounds, usesSentencePunctuation } from "./checks.ts";
import { findSpeakerLabels } from "./labels.ts";
import { sentenceWithPhrase } from "./phrase-sentence.ts";
import { textRank } from "./rank.ts";

export interface SummaryRequest {
  text: string;
  requiredPhrases: readonly string[];
  desiredLength: number;
  /** The UI language: only a hint, the text's own language wins. */
  language?: string;
}

/** Two sentences this similar say the same thing: the second is only taken when nothing else fits. */
const REDUNDANT = 0.6;
const ELLIPSIS = "…";

/** One piece of the summary: a range of the source (maybe cut, marked with "…") or a phrase on its own. */
interface Item {
  start: number;
  end: number;
  /** Set for a required phrase that the text does not contain. */
  own?: string;
  sentence: number;
  score: number;
  forced: boolean;
  cutStart: boolean;
  cutEnd: boolean;
}

export function summarizeOffline(req: SummaryRequest): string {
  return new Summarizer(req).run();
}

class Summarizer {
  private readonly text: string;
  private readonly lang: string;
  private readonly joiner: string;
  private readonly sentences: Span[];
  private readonly lengths: number[];
  private readonly scores: number[];
  private readonly similarity: (i: number, j: number) => number;
  private readonly phrases: string[];
  private readonly target: number;
  private readonly lo: number;
  private readonly hi: number;
  private items: Item[] = [];
  /** Source offsets where a whole sentence ends (before long sentences are cut into clauses). */
  private readonly sentenceEnds: Set<number>;
  /** Whether the text ends its sentences with punctuation (Thai and raw transcripts may not). */
  private readonly punctuated: boolean;
  /** Speaker labels by the offset of the line they start. */
  private readonly labels: Map<number, { end: number; text: string; name: string }>;

  constructor(req: SummaryRequest) {
    this.text = req.text;
    this.lang = detectLanguage(req.text, req.language);
    this.joiner = sentenceJoiner(this.lang);
    this.sentences = splitSentences(req.text, this.lang);
    this.lengths = this.sentences.map((s) => charCount(s.text));
    this.sentenceEnds = new Set(splitSentences(req.text, this.lang, Number.MAX_SAFE_INTEGER).map((s) => s.end));
    this.punctuated = usesSentencePunctuation(req.text);
    this.labels = findSpeakerLabels(req.text);
    const terms = this.sentences.map((s) => {
      // Speaker labels ("Interviewer:", "佐藤：") repeat on every line: they say nothing about content.
      const label = this.labels.get(this.lineStart(s.start));
      const skipTo = label && s.start < label.end ? label.end : s.start;
      return tokenize(this.text.slice(skipTo, s.end), this.lang)
        .filter((t) => t.content)
        .map((t) => t.norm);
    });
    const graph = textRank(terms);
    const n = this.sentences.length;
    // A mild lead bonus (openings of articles and answers tend to state the point); questions inform
    // less than the answers that follow them.
    this.scores = graph.scores.map((score, i) => {
      const question = /(?:[?？]|か。)["'」』”]?$/u.test(this.sentences[i].text);
      const empty = terms[i].length === 0;
      return score * (1 + 0.2 * (1 - i / Math.max(1, n))) * (question ? 0.5 : 1) * (empty ? 0.1 : 1);
    });
    this.similarity = graph.similarity;
    this.phrases = nonEmptyPhrases(req.requiredPhrases);
    this.target = req.desiredLength;
    const { min, max } = lengthBounds(req.desiredLength);
    this.lo = min;
    this.hi = max;
  }

  run(): string {
    this.placeRequiredPhrases();
    if (this.estimate() > this.hi) this.shrinkForcedToSnippets();
    this.fillGreedily();
    return this.finishOnSentence(this.fitExactly());
  }

  // ---- the ending -----------------------------------------------------------------------------

  /** The piece the summary ends with: the last phrase sentence, else the last range in text order. */
  private lastPiece(): Item | undefined {
    const own = this.items.filter((it) => it.own);
    if (own.length) return own[own.length - 1];
    return this.items.filter((it) => !it.own).sort((a, b) => b.end - a.end)[0];
  }

  /** A whole sentence of the text ends at `end` (and with punctuation, when the text uses it). */
  private isSentenceEnd(end: number): boolean {
    if (!this.sentenceEnds.has(end)) return false;
    return !this.punctuated || endsSentence(this.text.slice(Math.max(0, end - 8), end));
  }

  private endsWell(out: string): boolean {
    const last = this.lastPiece();
    if (!last) return true;
    if (last.own) return !this.punctuated || endsSentence(out);
    return !last.cutEnd && this.isSentenceEnd(last.end) && (!this.punctuated || endsSentence(out));
  }

  private fits(out: string): boolean {
    const len = charCount(out);
    return len >= this.lo && len <= this.hi;
  }

  /**
   * Makes the summary end on a whole sentence while keeping the length: the last piece is completed to
   * its sentence's end, or dropped, or followed by a later whole sentence, the weakest other optional
   * pieces making room. Only when no such choice fits (a text of one giant sentence) is the last piece
   * closed with a full stop after its last complete clause.
   */
  private finishOnSentence(out: string): string {
    if (this.endsWell(out) || this.items.length === 0) return out;
    for (let round = 0; round < 8; round++) {
      const next = this.repairEnding();
      if (!next) break;
      this.items = next;
      const composed = this.compose();
      if (this.endsWell(composed) && this.fits(composed)) return composed;
      out = composed;
    }
    return this.closeLast(this.fits(out) ? out : this.fitExactly());
  }

  /** The first of the candidate item lists that ends well and fits; else one that ends better. */
  private repairEnding(): Item[] | null {
    const saved = this.items;
    const last = this.lastPiece();
    if (!last || last.own) return null;
    const others = saved.filter((it) => it !== last);
    const candidates: Item[][] = [];
    // 1. The last piece completed to the end of its sentence (a clause of a long one, or a cut one).
    const end = this.wholeEnd(last.end);
    if (end !== null) {
      const completed = { ...last, end, cutEnd: false };
      candidates.push([...others, completed]);
      candidates.push(...this.makeRoom([...others, completed], completed));
    }
    // 2. The last piece dropped (when optional).
    if (!last.forced) candidates.push(others);
    // 3. A later whole sentence after the last piece (or instead of it, when optional).
    for (const i of this.byScore()) {
      const s = this.sentences[i];
      if (s.start < last.end || this.isUsed(i) || !this.isSentenceEnd(s.end) || this.sentenceAt(s.start) !== i)
        continue;
      const added = this.sentenceItem(i, false);
      candidates.push([...saved, added]);
      if (!last.forced) candidates.push([...others, added]);
      candidates.push(...this.makeRoom([...saved, added], added));
      if (candidates.length > 60) break;
    }
    let fallback: Item[] | null = null;
    for (const c of candidates) {
      this.items = c;
      const out = this.compose();
      if (this.endsWell(out) && this.fits(out)) {
        this.items = saved;
        return c;
      }
      // Ending well but a little out of length: the next round may fix the rest.
      if (!fallback && this.endsWell(out) && charCount(out) <= this.hi) fallback = c;
    }
    this.items = saved;
    return fallback;
  }

  /** The list with the weakest optional pieces other than `keep` dropped until it is no longer too long. */
  private makeRoom(items: Item[], keep: Item): Item[][] {
    const out: Item[][] = [];
    let list = items;
    const optional = items.filter((it) => !it.forced && it !== keep).sort((a, b) => a.score - b.score);
    for (const drop of optional) {
      list = list.filter((it) => it !== drop);
      out.push(list);
      this.items = list;
      if (charCount(this.compose()) <= this.hi) break;
    }
    return out;
  }

  /** The source offset where the whole sentence holding offset `end` ends, or null if it is not one. */
  private wholeEnd(end: number): number | null {
    let best: number | null = null;
    for (const e of this.sentenceEnds) if (e >= end && (best === null || e < best)) best = e;
    return best !== null && best !== end && this.isSentenceEnd(best) ? best : null;
  }

  /**
   * Last resort (one long sentence, no room to complete it): the last piece ends after its last
   * complete clause, closed with the language's full stop, instead of a comma or a cut word.
   */
  private closeLast(out: string): string {
    if (this.endsWell(out)) return out;
    const stop = /^(?:ja|zh)$/u.test(this.lang) ? "。" : this.lang === "hi" ? "।" : ".";
    const trimmed = out.replace(/[\s,;:、，；：—–…-]+$/u, "");
    const clause = trimmed.replace(/[,;:、，；：][^,;:、，；：]*$/u, "");
    for (const candidate of [clause, trimmed]) {
      const closed = `${candidate}${stop}`;
      if (candidate && this.fits(closed) && this.phrases.every((p) => closed.includes(p))) return closed;
    }
    const closed = `${trimmed}${stop}`;
    return this.phrases.every((p) => closed.includes(p)) ? closed : out;
  }

  // ---- required phrases -------------------------------------------------------------------

  /**
   * Every required phrase goes in verbatim. A phrase found in the text brings the sentence(s) holding
   * it (the occurrence that adds the fewest characters). A phrase the text does not contain is still
   * required to appear, so it is added as a sentence of its own at the end of the summary.
   */
  private placeRequiredPhrases(): void {
    const byLength = [...this.phrases].sort((a, b) => b.length - a.length);
    for (const phrase of byLength) {
      if (this.composedContains(phrase)) continue;
      const range = this.bestOccurrence(phrase);
      if (range) {
        for (let i = range.first; i <= range.last; i++) {
          if (!this.items.some((it) => it.sentence === i)) this.items.push(this.sentenceItem(i, true));
          else for (const it of this.items) if (it.sentence === i) it.forced = true;
        }
      } else {
        // Not in the text (or only with other casing/spacing): still required verbatim, so it is put
        // into a sentence of its own (the screen also tells the user the text did not contain it).
        const own = sentenceWithPhrase(phrase, this.lang);
        this.items.push({
          start: -1,
          end: -1,
          own,
          sentence: -1,
          score: Number.POSITIVE_INFINITY,
          forced: true,
          cutStart: false,
          cutEnd: false,
        });
      }
    }
  }

  private composedContains(phrase: string): boolean {
    return this.items.length > 0 && this.compose().includes(phrase);
  }

  /** The sentences covering the occurrence of `phrase` that adds the fewest new characters. */
  private bestOccurrence(phrase: string): { first: number; last: number; start: number; end: number } | null {
    let best: { first: number; last: number; start: number; end: number; cost: number; score: number } | null = null;
    let from = 0;
    for (let tries = 0; tries < 500; tries++) {
      const at = this.text.indexOf(phrase, from);
      if (at < 0) break;
      from = at + 1;
      const first = this.sentenceAt(at);
      const last = this.sentenceAt(at + phrase.length - 1);
      if (first < 0 || last < 0) continue;
      let cost = 0;
      let score = 0;
      for (let i = first; i <= last; i++) {
        if (!this.items.some((it) => it.sentence === i)) cost += this.lengths[i] + 1;
        score += this.scores[i];
      }
      if (!best || cost < best.cost || (cost === best.cost && score > best.score)) {
        best = { first, last, start: at, end: at + phrase.length, cost, score };
      }
    }
    return best;
  }

  /** Index of the sentence whose range holds source offset `pos` (or the next one after a gap). */
  private sentenceAt(pos: number): number {
    let lo = 0;
    let hi = this.sentences.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.sentences[mid].end > pos) {
        found = mid;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    return found;
  }

  /**
   * Last resort when the sentences holding the phrases alone are longer than allowed: keep only a
   * window of words around each phrase occurrence (marked with "…"), never cutting the phrase itself.
   */
  private shrinkForcedToSnippets(): void {
    const own = this.items.filter((it) => it.own);
    const occurrences: Array<{ start: number; end: number; sentence: number }> = [];
    for (const phrase of this.phrases) {
      if (own.some((it) => it.own?.includes(phrase))) continue;
      const range = this.bestOccurrence(phrase);
      if (range) occurrences.push({ start: range.start, end: range.end, sentence: range.first });
    }
    const ownChars = own.reduce((n, it) => n + charCount(it.own ?? "") + 1, 0);
    const phraseChars = occurrences.reduce((n, o) => n + charCount(this.text.slice(o.start, o.end)) + 3, 0);
    const spare = Math.max(0, this.target - ownChars - phraseChars);
    let pad = Math.floor(spare / Math.max(1, 2 * occurrences.length));
    for (let attempt = 0; attempt < 8; attempt++) {
      this.items = [...own, ...occurrences.map((o) => this.snippet(o, pad))];
      if (charCount(this.compose()) <= this.hi || pad === 0) break;
      pad = Math.floor(pad / 2);
    }
  }

  /** A phrase occurrence widened by about `pad` characters each side, to word boundaries inside its sentences. */
  private snippet(o: { start: number; end: number; sentence: number }, pad: number): Item {
    const first = o.sentence;
    const last = Math.max(first, this.sentenceAt(o.end - 1));
    const sStart = this.sentences[first].start;
    const sEnd = this.sentences[last].end;
    const span = this.text.slice(sStart, sEnd);
    const bounds = wordBoundaries(span, this.lang).map((b) => b + sStart);
    const wantStart = Math.max(sStart, this.offsetBack(o.start, pad));
    const wantEnd = Math.min(sEnd, this.offsetForward(o.end, pad));
    // Widen to the nearest word boundary outside the wanted window (keeps whole words and the phrase).
    let start = sStart;
    for (const b of bounds) if (b <= wantStart && b <= o.start) start = b;
    let end = sEnd;
    for (let k = bounds.length - 1; k >= 0; k--) if (bounds[k] >= wantEnd && bounds[k] >= o.end) end = bounds[k];
    while (start < o.start && /\s/u.test(this.text[start])) start++;
    while (end > o.end && /\s/u.test(this.text[end - 1])) end--;
    return {
      start,
      end,
      sentence: first,
      score: Number.POSITIVE_INFINITY,
      forced: true,
      cutStart: start > sStart,
      cutEnd: end < sEnd,
    };
  }

  /** Source offset `n` code points before `pos`. */
  private offsetBack(pos: number, n: number): number {
    let p = pos;
    for (let k = 0; k < n && p > 0; k++) p -= p >= 2 && /[\uDC00-\uDFFF]/.test(this.text[p - 1]) ? 2 : 1;
    return p;
  }

  /** Source offset `n` code points after `pos`. */
  private offsetForward(pos: number, n: number): number {
    let p = pos;
    for (let k = 0; k < n && p < this.text.length; k++) p += /[\uD800-\uDBFF]/.test(this.text[p]) ? 2 : 1;
    return p;
  }

  // ---- ranking-based selection ------------------------------------------------------------

  private sentenceItem(i: number, forced: boolean): Item {
    const s = this.sentences[i];
    return { start: s.start, end: s.end, sentence: i, score: this.scores[i], forced, cutStart: false, cutEnd: false };
  }

  /** Approximate length: items plus one separator each (the exact count comes from compose()). */
  private estimate(): number {
    let n = 0;
    for (const it of this.items) {
      n += it.own ? charCount(it.own) : charCount(this.text.slice(it.start, it.end));
      n += (it.cutStart ? 1 : 0) + (it.cutEnd ? 1 : 0) + 1;
    }
    return Math.max(0, n - 1);
  }

  private isUsed(i: number): boolean {
    const s = this.sentences[i];
    return this.items.some((it) => it.sentence === i || (!it.own && it.start < s.end && it.end > s.start));
  }

  private byScore(): number[] {
    return this.sentences.map((_, i) => i).sort((a, b) => this.scores[b] - this.scores[a] || a - b);
  }

  /** Best-ranked sentences first, skipping near-duplicates, up to the desired length; then up to +10%. */
  private fillGreedily(): void {
    let total = this.estimate();
    const order = this.byScore();
    const chosen: number[] = this.items.filter((it) => it.sentence >= 0).map((it) => it.sentence);
    for (const i of order) {
      if (total >= this.target) break;
      if (this.isUsed(i)) continue;
      const cost = this.lengths[i] + 1;
      if (total + cost > this.target) continue;
      if (chosen.some((j) => this.similarity(i, j) > REDUNDANT)) continue;
      this.items.push(this.sentenceItem(i, false));
      chosen.push(i);
      total += cost;
    }
    if (total >= this.lo) return;
    for (const i of order) {
      if (total >= this.lo) break;
      if (this.isUsed(i)) continue;
      const cost = this.lengths[i] + 1;
      if (total + cost > this.hi) continue;
      this.items.push(this.sentenceItem(i, false));
      total += cost;
    }
  }

  /** Measures the real result and corrects it until it is within the bounds (a few rounds at most). */
  private fitExactly(): string {
    let out = this.compose();
    for (let round = 0; round < 60; round++) {
      const len = charCount(out);
      if (len >= this.lo && len <= this.hi) return out;
      if (len > this.hi ? !this.shorten(len) : !this.lengthen(len)) break;
      out = this.compose();
    }
    return this.lastResort(out);
  }

  /** Drops the weakest sentence that can go, or cuts one by words. False when nothing can change. */
  private shorten(len: number): boolean {
    const optional = this.items.filter((it) => !it.forced).sort((a, b) => a.score - b.score);
    for (const it of optional) {
      const cost = this.itemLength(it) + 1;
      if (len - cost >= this.lo) {
        this.items = this.items.filter((x) => x !== it);
        return true;
      }
    }
    const over = len - this.target;
    for (const it of optional) {
      const itLen = this.itemLength(it);
      if (itLen - 1 > len - this.hi && it.sentence >= 0) {
        const cut = this.cutSentence(it.sentence, Math.max(1, itLen - over));
        if (cut) {
          this.items = this.items.map((x) => (x === it ? cut : x));
          return true;
        }
      }
    }
    if (optional.length > 0) {
      this.items = this.items.filter((x) => x !== optional[0]);
      return true;
    }
    if (this.items.some((it) => it.forced && !it.own && (!it.cutStart || !it.cutEnd))) {
      const before = this.estimate();
      this.shrinkForcedToSnippets();
      return this.estimate() < before;
    }
    return false;
  }

  /** Adds the best unused sentence that fits, else the start of one cut at a word boundary. */
  private lengthen(len: number): boolean {
    const room = this.hi - len;
    const need = this.lo - len;
    const order = this.byScore().filter((i) => !this.isUsed(i));
    // A sentence from the middle of a speaker's turn brings the speaker's name along: measure for real.
    const fitsWith = (item: Item) => {
      this.items.push(item);
      if (charCount(this.compose()) <= this.hi) return true;
      this.items.pop();
      return false;
    };
    let tries = 0;
    for (const i of order) {
      if (this.lengths[i] + 1 <= room) {
        if (fitsWith(this.sentenceItem(i, false))) return true;
        if (++tries > 40) break;
      }
    }
    for (const i of order) {
      if (this.lengths[i] >= need) {
        const want = Math.min(room - 1, Math.max(need + 1, this.target - len - 1));
        const cut = this.cutSentence(i, want);
        if (cut && fitsWith(cut)) return true;
        if (++tries > 80) break;
      }
    }
    return false;
  }

  /** Sentence i cut after about `chars` characters (the "…" included), at a word boundary when one is near. */
  private cutSentence(i: number, chars: number): Item | null {
    const s = this.sentences[i];
    const keep = Math.max(1, chars - 1);
    if (keep >= this.lengths[i]) return null;
    const bounds = wordBoundaries(s.text, this.lang);
    let best = -1;
    let bestCp = 0;
    for (const b of bounds) {
      const cp = charCount(s.text.slice(0, b));
      if (cp <= keep && cp >= keep * 0.8 && cp > bestCp) {
        best = b;
        bestCp = cp;
      }
    }
    if (best <= 0) best = this.offsetForward(s.start, keep) - s.start;
    let end = s.start + best;
    while (end > s.start && /[\s,;:、，]/u.test(this.text[end - 1])) end--;
    if (end <= s.start) return null;
    return { start: s.start, end, sentence: i, score: this.scores[i], forced: false, cutStart: false, cutEnd: true };
  }

  private itemLength(it: Item): number {
    if (it.own) return charCount(it.own);
    return charCount(this.text.slice(it.start, it.end)) + (it.cutStart ? 1 : 0) + (it.cutEnd ? 1 : 0);
  }

  /**
   * Very rare (a text that is mostly whitespace, phrases that fill the whole length): pad with the
   * text's next unused characters or cut the tail of the last optional piece, protecting every phrase.
   */
  private lastResort(out: string): string {
    const len = charCount(out);
    if (len > this.hi) {
      const cps = [...out];
      let cut = this.hi - 1;
      // Never end inside a required phrase: move the cut before any phrase that straddles it.
      for (const p of this.phrases) {
        let from = 0;
        for (;;) {
          const at = out.indexOf(p, from);
          if (at < 0) break;
          from = at + 1;
          const startCp = charCount(out.slice(0, at));
          const endCp = startCp + charCount(p);
          if (startCp < cut && endCp > cut) cut = startCp;
        }
      }
      const shortened = cps.slice(0, cut).join("").trimEnd() + ELLIPSIS;
      if (this.phrases.every((p) => shortened.includes(p))) return shortened;
      return out;
    }
    if (len < this.lo) {
      const rest = this.text.replace(/\s+/gu, " ");
      const extra = [...rest].slice(0, this.target - len).join("");
      return out + this.joiner + extra;
    }
    return out;
  }

  // ---- output ---------------------------------------------------------------------------------

  /** The items in the text's order; neighbours in the text keep their original spacing. */
  compose(): string {
    const ranges = this.items
      .filter((it) => !it.own)
      .map((it) => ({ ...it }))
      .sort((a, b) => a.start - b.start);
    const merged: Item[] = [];
    for (const r of ranges) {
      const prev = merged[merged.length - 1];
      if (prev && r.start <= prev.end) {
        if (r.end > prev.end) {
          prev.end = r.end;
          prev.cutEnd = r.cutEnd;
        }
        continue;
      }
      merged.push(r);
    }
    let out = "";
    let prev: Item | null = null;
    for (const r of merged) {
      const gap = prev ? this.text.slice(prev.end, r.start) : "\n";
      if (prev) {
        if (!prev.cutEnd && !r.cutStart && /^\s*$/u.test(gap)) out += gap;
        else out += gap.includes("\n") ? "\n" : this.joiner;
      }
      // A sentence from the middle of a speaker's line keeps the speaker's name in front of it.
      const label = gap.includes("\n") ? this.labels.get(this.lineStart(r.start)) : undefined;
      if (label && r.start >= label.end) out += label.text;
      out += (r.cutStart ? ELLIPSIS : "") + this.text.slice(r.start, r.end) + (r.cutEnd ? ELLIPSIS : "");
      prev = r;
    }
    for (const it of this.items) {
      if (!it.own) continue;
      out += out ? this.joiner + it.own : it.own;
    }
    return out;
  }

  /** Offset of the start of the line holding `pos`. */
  private lineStart(pos: number): number {
    const nl = Math.max(this.text.lastIndexOf("\n", pos - 1), this.text.lastIndexOf("\r", pos - 1));
    return nl + 1;
  }
}
