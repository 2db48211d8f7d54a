/**
 * The fidelity check's word alignment (see fidelity.ts): words as units, how alike two words are,
 * and a sentence's best local alignment inside a window of the transcript.
 */
import type { WordToken } from "./language/index.ts";

const DIGIT = /\p{Nd}/u;
const LETTER = /[\p{L}\p{N}]/u;
const MIN_PREFIX = 4;
/** Cost of an unmatched unit against a matched one when choosing stretches. */
const MISS_COST = 0.5;
/** Cost of a transcript unit skipped inside a sentence's stretch. */
const SKIP_COST = 0.25;
const CANDIDATES = 4;
const VOTERS = 8;
const GAP_SCAN = 600;
/** Most diagonals one sentence's units vote for (beyond its two rarest units). */
const MAX_VOTES = 1500;

/** Content: the toolkit's topic words, plus any number (a date or an amount is what gets checked first). */
export const isContent = (t: WordToken) => t.content || DIGIT.test(t.norm);

export interface Unit {
  key: number;
  weight: number;
  /** Index of the word (token) the unit belongs to, on its side. */
  tok: number;
}

/** Words to units: one per word, or one per letter in text without spaces. */
export function toUnits(tokens: WordToken[], spaceless: boolean, intern: (s: string) => number): Unit[] {
  const out: Unit[] = [];
  tokens.forEach((t, i) => {
    const weight = isContent(t) ? 2 : 1;
    if (!spaceless) out.push({ key: intern(t.norm), weight, tok: i });
    else for (const ch of t.norm) if (LETTER.test(ch)) out.push({ key: intern(ch), weight, tok: i });
  });
  return out;
}

export interface Match {
  /** Transcript unit range of the stretch (first to last matched unit, inclusive). */
  from: number;
  to: number;
  matched: number;
  score: number;
  /** Per sentence unit, the transcript unit it matched (-1: none) and how well (0–1). */
  pairs: Int32Array;
  sims: Float32Array;
}

/** A sentence's units aligned inside transcript units [lo, hi) (null: nothing matched). */
type Aligner = (units: Unit[], lo: number, hi: number) => Match | null;

/**
 * The alignment of sentences against the transcript's units `tUnits`; `names` are the interned
 * words the units' keys stand for (the list may grow as sentences are interned).
 */
function createAligner(tUnits: Unit[], names: readonly string[], spaceless: boolean): Aligner {
  // How alike two units are: the same word, or (text with spaces) an inflected form or a
  // contraction of it. Words are told apart first by a number for their first letters and one for
  // their stem before an apostrophe, so the string test runs only for likely pairs.
  const simCache = new Map<number, number>();
  const groupOf = new Map<string, number>();
  const group = (s: string) => {
    let g = groupOf.get(s);
    if (g === undefined) {
      g = groupOf.size + 1;
      groupOf.set(s, g);
    }
    return g;
  };
  const prefixGroup: number[] = [];
  const stemGroup: number[] = [];
  const sim = (a: number, b: number): number => {
    if (a === b) return 1;
    if (spaceless) return 0;
    for (const k of [a, b]) {
      if (prefixGroup[k] === undefined) {
        const w = names[k];
        prefixGroup[k] = w.length >= MIN_PREFIX ? group(`p:${w.slice(0, MIN_PREFIX)}`) : -1 - k;
        stemGroup[k] = group(`s:${stem(w)}`);
      }
    }
    if (prefixGroup[a] !== prefixGroup[b] && stemGroup[a] !== stemGroup[b]) return 0;
    const key = a * 1_000_003 + b;
    let s = simCache.get(key);
    if (s === undefined) {
      s = inflected(names[a], names[b]) || contracted(names[a], names[b]) ? 0.7 : 0;
      simCache.set(key, s);
    }
    return s;
  };

  /**
   * The sentence's best local alignment inside transcript units [lo, hi): matched units add their
   * weight (times how alike), sentence units left unmatched add nothing, and transcript units skipped
   * inside the stretch cost SKIP_COST each — so a stretch stays tight (a stutter or a false start
   * costs a little; reaching for the same word a sentence away costs more than an inflected form nearby).
   */
  const tKeys = Int32Array.from(tUnits, (u) => u.key);
  let scratch = new Float64Array(1024);
  const lcs = (units: Unit[], lo: number, hi: number): Match | null => {
    const n = units.length;
    const m = hi - lo;
    if (n === 0 || m <= 0) return null;
    const w = m + 1;
    if (scratch.length < (n + 1) * w) scratch = new Float64Array((n + 1) * w * 2);
    const dp = scratch;
    dp.fill(0, 0, w);
    let best = 0;
    let bi = 0;
    let bj = 0;
    for (let i = 1; i <= n; i++) {
      const uk = units[i - 1].key;
      const weight = units[i - 1].weight;
      const row = i * w;
      const up = row - w;
      dp[row] = 0;
      for (let j = 1; j <= m; j++) {
        const a = dp[up + j];
        const b = dp[row + j - 1] - SKIP_COST;
        let v = Math.max(a, b);
        const tk = tKeys[lo + j - 1];
        const s = tk === uk ? 1 : spaceless ? 0 : sim(uk, tk);
        if (s > 0) {
          const d = dp[up + j - 1];
          const c = Math.max(d, 0) + s * weight;
          if (c > v) v = c;
        }
        dp[row + j] = v;
        if (i === n && v > best) {
          best = v;
          bi = i;
          bj = j;
        }
      }
    }
    if (best <= 0) return null;
    const pairs = new Int32Array(n).fill(-1);
    const sims = new Float32Array(n);
    let i = bi;
    let j = bj;
    let matched = 0;
    while (i > 0 && j > 0) {
      const here = dp[i * w + j];
      const s = sim(units[i - 1].key, tUnits[lo + j - 1].key);
      const before = dp[(i - 1) * w + j - 1];
      if (s > 0 && here === Math.max(before, 0) + s * units[i - 1].weight) {
        pairs[i - 1] = lo + j - 1;
        sims[i - 1] = s;
        matched += s * units[i - 1].weight;
        if (before <= 0) break;
        i--;
        j--;
      } else if (here === dp[(i - 1) * w + j]) i--;
      else j--;
    }
    let from = Number.POSITIVE_INFINITY;
    let to = -1;
    for (const p of pairs) {
      if (p < 0) continue;
      from = Math.min(from, p);
      to = Math.max(to, p);
    }
    const total = units.reduce((a, u) => a + u.weight, 0);
    return { from, to, matched, score: best - MISS_COST * (total - matched), pairs, sims };
  };
  return lcs;
}

/** A sentence as the alignment sees it: its units and the weight of all of them. */
interface SentenceUnits {
  units: Unit[];
  total: number;
}

/** What every phase of the alignment reads. */
interface Alignment {
  tUnits: Unit[];
  spaceless: boolean;
  sentences: ReadonlyArray<SentenceUnits>;
  /** A sentence's best local alignment inside transcript units [lo, hi) (createAligner). */
  lcs: Aligner;
}

/**
 * Each sentence's stretch of the transcript's units (null: none found): candidate stretches per
 * sentence, the chain of them that moves forward through the transcript with most score in all,
 * the sentences left without one looked for in the gap their neighbours leave, then each stretch
 * aligned once more between its neighbours'.
 */
export function alignSentences(
  tUnits: Unit[],
  names: readonly string[],
  spaceless: boolean,
  sentences: ReadonlyArray<SentenceUnits>,
): Array<Match | null> {
  const a: Alignment = { tUnits, spaceless, sentences, lcs: createAligner(tUnits, names, spaceless) };
  const chosen = chainOf(candidateStretches(a), tUnits.length);
  searchGaps(a, chosen);
  widenStretches(a, chosen);
  return chosen;
}

/** How far a sentence's window reaches beyond its own length, in units: a third of it, 3 to 24. */
const slackOf = (n: number) => Math.min(24, Math.max(3, Math.ceil(n / 3)));

/**
 * What a unit is looked up by when finding candidate stretches: its word, or in text without spaces
 * the pair of letters it starts (a single letter occurs everywhere).
 */
const voteKey = (spaceless: boolean, units: Unit[], i: number) =>
  !spaceless ? units[i].key : i + 1 < units.length ? units[i].key * 1_000_003 + units[i + 1].key : -1 - units[i].key;

/** Candidate stretches per sentence: diagonals of its rarest units, scored inside a window. */
function candidateStretches(a: Alignment): Match[][] {
  const T = a.tUnits.length;
  // Where each unit occurs in the transcript.
  const postings = new Map<number, number[]>();
  a.tUnits.forEach((_, i) => {
    const key = voteKey(a.spaceless, a.tUnits, i);
    const list = postings.get(key);
    if (list) list.push(i);
    else postings.set(key, [i]);
  });
  // One buffer, reused for every sentence's votes.
  const buffer = new Int32Array(2 * (MAX_VOTES + T) + 1);
  return a.sentences.map((s) => {
    const n = s.units.length;
    const slack = slackOf(n);
    const out: Match[] = [];
    for (const d of bestDiagonals(voteDiagonals(a.spaceless, postings, s.units, buffer), slack)) {
      const lo = Math.max(0, d - slack);
      const hi = Math.min(T, d + n + 2 * slack);
      const m = a.lcs(s.units, lo, hi);
      if (m && m.score > 0) out.push(m);
    }
    return out;
  });
}

/**
 * Diagonals (where the sentence would start in the transcript) voted for by its rarest units, a few
 * thousand at most, sorted; written into `buffer`.
 */
function voteDiagonals(
  spaceless: boolean,
  postings: Map<number, number[]>,
  units: Unit[],
  buffer: Int32Array,
): Int32Array {
  const voters = units
    .map((_, j) => ({ j, list: postings.get(voteKey(spaceless, units, j)) ?? [] }))
    .filter((v) => v.list.length > 0)
    .sort((a, b) => a.list.length - b.list.length)
    .slice(0, VOTERS);
  let count = 0;
  for (const [k, v] of voters.entries()) {
    if (k >= 2 && count + v.list.length > MAX_VOTES) break;
    // A unit said everywhere votes at evenly spread places only (a text of one repeated word).
    const stride = Math.max(1, Math.ceil(v.list.length / (MAX_VOTES / 2)));
    for (let q = 0; q < v.list.length; q += stride) buffer[count++] = v.list[q] - v.j;
  }
  return buffer.subarray(0, count).sort();
}

/**
 * Per diagonal, the votes within `slack` after it; the best few clusters, apart from each other (a
 * cluster with under a third of the best one's votes is not worth aligning).
 */
function bestDiagonals(diag: Int32Array, slack: number): number[] {
  const count = diag.length;
  const inWindow = new Int32Array(count);
  for (let a = 0, b = 0; a < count; a++) {
    while (b < count && diag[b] <= diag[a] + slack) b++;
    inWindow[a] = b - a;
  }
  const best: number[] = [];
  let top = 0;
  for (let c = 0; c < CANDIDATES; c++) {
    let bi = -1;
    for (let a = 0; a < count; a++) {
      if (inWindow[a] > 0 && (bi < 0 || inWindow[a] > inWindow[bi])) bi = a;
    }
    if (bi < 0) break;
    if (c === 0) top = inWindow[bi];
    else if (inWindow[bi] * 3 < top) break;
    const d = diag[bi];
    best.push(d);
    for (let a = 0; a < count; a++) if (Math.abs(diag[a] - d) <= slack) inWindow[a] = 0;
  }
  return best;
}

/**
 * Fenwick tree of the best chain total by stretch end: `query(pos)` gives the best total of a chain
 * whose last stretch ends before `pos`, and that chain's last link (-1: none).
 */
class BestChains {
  private readonly val: Float64Array;
  private readonly ref: Int32Array;

  constructor(private readonly size: number) {
    this.val = new Float64Array(size + 1);
    this.ref = new Int32Array(size + 1).fill(-1);
  }

  query(pos: number): [number, number] {
    let v = 0;
    let r = -1;
    for (let i = pos; i > 0; i -= i & -i) {
      if (this.val[i] > v) {
        v = this.val[i];
        r = this.ref[i];
      }
    }
    return [v, r];
  }

  update(pos: number, v: number, r: number): void {
    for (let i = pos; i <= this.size; i += i & -i) {
      if (v > this.val[i]) {
        this.val[i] = v;
        this.ref[i] = r;
      }
    }
  }
}

/** The chain: candidates that move forward through the transcript, most score in all. */
function chainOf(candidates: Match[][], T: number): Array<Match | null> {
  const tree = new BestChains(T + 2);
  const refs: Array<{ s: number; c: number; prev: number }> = [];
  let bestTotal = 0;
  let bestRef = -1;
  candidates.forEach((cands, s) => {
    // Entered once the sentence's candidates are all scored, so none of them follows another.
    const pending: Array<[number, number, number]> = [];
    cands.forEach((c, ci) => {
      // A stretch starting at unit `from` may follow a stretch ending before it (tree position = end + 1).
      const [v, r] = tree.query(c.from + 1);
      const total = v + c.score;
      refs.push({ s, c: ci, prev: r });
      pending.push([c.to + 1, total, refs.length - 1]);
      if (total > bestTotal) {
        bestTotal = total;
        bestRef = refs.length - 1;
      }
    });
    for (const [pos, v, r] of pending) tree.update(pos + 1, v, r);
  });
  const chosen: Array<Match | null> = candidates.map(() => null);
  for (let r = bestRef; r >= 0; r = refs[r].prev) chosen[refs[r].s] = candidates[refs[r].s][refs[r].c];
  return chosen;
}

/** Sentences without a stretch: looked for in the gap their neighbours leave, window by window. */
function searchGaps(a: Alignment, chosen: Array<Match | null>): void {
  const T = a.tUnits.length;
  let floor = 0;
  for (let s = 0; s < a.sentences.length; s++) {
    const here = chosen[s];
    if (here) {
      floor = here.to + 1;
      continue;
    }
    const ceil = nearestStretch(chosen, s, 1)?.from ?? T;
    if (ceil <= floor) continue;
    const units = a.sentences[s].units;
    const slack = slackOf(units.length);
    const width = units.length + 2 * slack;
    let best: Match | null = null;
    // Only the first GAP_SCAN units of a long gap, so one sentence costs a bounded number of windows.
    const stop = Math.min(ceil, floor + GAP_SCAN);
    for (let lo = floor; lo < stop; lo += slack) {
      const m = a.lcs(units, lo, Math.min(ceil, lo + width));
      if (m && m.score > 0 && (!best || m.score > best.score)) best = m;
      if (lo + width >= ceil) break;
    }
    if (best) {
      chosen[s] = best;
      floor = best.to + 1;
    }
  }
}

/**
 * Each stretch not yet fully matched aligned once more in a wider window that stays between its
 * neighbours' stretches (a candidate window can cut a sentence short where its rarest words also
 * occur just before it).
 */
function widenStretches(a: Alignment, chosen: Array<Match | null>): void {
  const T = a.tUnits.length;
  let after = 0;
  for (let s = 0; s < a.sentences.length; s++) {
    const here = chosen[s];
    if (!here) continue;
    if (here.matched >= a.sentences[s].total) {
      after = here.to + 1;
      continue;
    }
    const before = nearestStretch(chosen, s, 1)?.from ?? T;
    const n = a.sentences[s].units.length;
    const slack = slackOf(n);
    const wider = a.lcs(
      a.sentences[s].units,
      Math.max(after, here.from - n - slack),
      Math.min(before, here.to + 1 + n + slack),
    );
    if (wider && wider.score > here.score) chosen[s] = wider;
    after = (chosen[s] as Match).to + 1;
  }
}

/** The stretch of the nearest sentence before (step -1) or after (step 1) sentence `s` that has one. */
export function nearestStretch(chosen: ReadonlyArray<Match | null>, s: number, step: 1 | -1): Match | null {
  for (let n = s + step; n >= 0 && n < chosen.length; n += step) {
    const c = chosen[n];
    if (c) return c;
  }
  return null;
}

/** A word without its contraction ending ("didn't" → "did", "I'm" → "I"). */
const stem = (w: string) => w.replace(/n't$|'(m|s|d|ll|re|ve)$/, "");

/** A contraction and the first word it stands for ("didn't" / "did", "I'm" / "I", "we'd" / "we"). */
function contracted(a: string, b: string): boolean {
  return (a.includes("'") && stem(a) === b) || (b.includes("'") && stem(b) === a);
}

/**
 * Whether two different words are forms of one word: a shared prefix of at least 4 letters that
 * leaves at most 3 letters of the shorter word ("study"/"studies", "interview"/"interviews", not
 * "said"/"says").
 */
function inflected(a: string, b: string): boolean {
  if (a.length < MIN_PREFIX || b.length < MIN_PREFIX) return false;
  let cp = 0;
  while (cp < a.length && cp < b.length && a[cp] === b[cp]) cp++;
  return cp >= Math.max(MIN_PREFIX, Math.min(a.length, b.length) - 3);
}
