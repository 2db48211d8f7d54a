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

/**
 * The alignment of sentences against the transcript's units `tUnits`; `names` are the interned
 * words the units' keys stand for (the list may grow as sentences are interned).
 */
export function createAligner(
  tUnits: Unit[],
  names: readonly string[],
  spaceless: boolean,
): (units: Unit[], lo: number, hi: number) => Match | null {
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
