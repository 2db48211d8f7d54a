/** Finding words in the job page's transcript. Pure. */

/** Lower case, full-width letters and compatibility forms folded (ＡＢＣ → abc). */
const fold = (s: string) => s.normalize("NFKC").toLowerCase();

/** Indexes of the segments whose text contains `query` (case-insensitive; an empty query finds nothing). */
export function findMatches(texts: readonly string[], query: string): number[] {
  const q = fold(query.trim());
  if (!q) return [];
  const out: number[] = [];
  texts.forEach((text, i) => {
    if (fold(text).includes(q)) out.push(i);
  });
  return out;
}

/** The next (or previous) position in `count` matches from `at`, wrapping around; -1 without matches. */
export function stepMatch(at: number, count: number, direction: 1 | -1): number {
  if (count === 0) return -1;
  if (at < 0) return direction === 1 ? 0 : count - 1;
  return (at + direction + count) % count;
}
