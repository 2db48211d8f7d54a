/**
 * TextRank (Mihalcea & Tarau, 2004) over sentences: a graph whose edges are the TF-IDF cosine
 * similarity of two sentences' content words, scored by PageRank. Similarities are accumulated through
 * an inverted index, so the cost follows the shared words, not all sentence pairs.
 */

export interface RankedGraph {
  /** PageRank score per sentence (sums to 1). */
  scores: number[];
  /** Cosine similarity of two sentences (0 when they share no content word). */
  similarity(i: number, j: number): number;
}

const DAMPING = 0.85;
const MAX_ITERATIONS = 60;
const EPSILON = 1e-7;
/** Links kept per sentence (its most similar ones). */
const MAX_NEIGHBOURS = 40;

/** `terms[i]` lists the content words (normalised) of sentence i, repeats included. */
export function textRank(terms: string[][]): RankedGraph {
  const n = terms.length;
  if (n === 0) return { scores: [], similarity: () => 0 };

  // Term frequencies per sentence and document frequencies.
  const tfs: Array<Map<string, number>> = terms.map((ws) => {
    const m = new Map<string, number>();
    for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const tf of tfs) for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const idf = (w: string) => Math.log(1 + n / (df.get(w) ?? 1));

  // TF-IDF weights and norms; postings: term -> sentences (ascending) and weights.
  const postings = new Map<string, { ids: number[]; weights: number[] }>();
  const norms = new Float64Array(n);
  /** Per sentence: its terms' posting lists, its position in each, its weight. */
  const own: Array<Array<{ list: { ids: number[]; weights: number[] }; pos: number; weight: number }>> = [];
  tfs.forEach((tf, i) => {
    let sq = 0;
    const mine: (typeof own)[number] = [];
    for (const [w, f] of tf) {
      const weight = (1 + Math.log(f)) * idf(w);
      sq += weight * weight;
      let list = postings.get(w);
      if (!list) {
        list = { ids: [], weights: [] };
        postings.set(w, list);
      }
      mine.push({ list, pos: list.ids.length, weight });
      list.ids.push(i);
      list.weights.push(weight);
    }
    own.push(mine);
    norms[i] = Math.sqrt(sq);
  });

  // Each sentence's similarities to all others sharing a term, accumulated row by row; the row keeps
  // its strongest links only (a k-nearest-neighbour graph), so long or repetitive texts do not make
  // millions of edges. A term found in very many sentences says little about how two of them relate
  // and would make the pass quadratic: it is skipped.
  const dfCap = Math.max(30, Math.ceil(4 * Math.sqrt(n)));
  const adj: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  const scratch = new Float64Array(n);
  const touched: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const { list, pos, weight } of own[i]) {
      if (list.ids.length < 2 || list.ids.length > dfCap) continue;
      for (let k = 0; k < list.ids.length; k++) {
        if (k === pos) continue;
        const j = list.ids[k];
        if (scratch[j] === 0) touched.push(j);
        scratch[j] += weight * list.weights[k];
      }
    }
    const sims = new Float64Array(touched.length);
    touched.forEach((j, k) => {
      sims[k] = norms[i] && norms[j] ? scratch[j] / (norms[i] * norms[j]) : 0;
      scratch[j] = 0;
    });
    let threshold = Number.MIN_VALUE;
    if (touched.length > MAX_NEIGHBOURS) {
      const sorted = Float64Array.from(sims).sort();
      threshold = Math.max(threshold, sorted[sorted.length - MAX_NEIGHBOURS]);
    }
    const row = adj[i];
    for (let k = 0; k < touched.length && row.length < MAX_NEIGHBOURS; k++) {
      if (sims[k] >= threshold) row.push([touched[k], sims[k]]);
    }
    touched.length = 0;
  }
  const outWeight = adj.map((list) => list.reduce((s, [, w]) => s + w, 0));

  let scores = new Float64Array(n).fill(1 / n);
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    const next = new Float64Array(n);
    // Sentences without links hand their score out evenly (keeps the total at 1).
    let dangling = 0;
    for (let j = 0; j < n; j++) if (outWeight[j] === 0) dangling += scores[j];
    next.fill((1 - DAMPING) / n + (DAMPING * dangling) / n);
    for (let j = 0; j < n; j++) {
      if (outWeight[j] === 0) continue;
      const share = (DAMPING * scores[j]) / outWeight[j];
      for (const [i, w] of adj[j]) next[i] += share * w;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) delta += Math.abs(next[i] - scores[i]);
    scores = next;
    if (delta < EPSILON) break;
  }

  const simIndex = adj.map((list) => new Map(list));
  return {
    scores: Array.from(scores),
    similarity: (i, j) => (i === j ? 1 : (simIndex[i]?.get(j) ?? simIndex[j]?.get(i) ?? 0)),
  };
}
