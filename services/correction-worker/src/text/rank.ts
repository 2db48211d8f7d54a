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

  // TF-IDF weights and norms; postings: term -> [sentence, weight].
  const postings = new Map<string, Array<[number, number]>>();
  const norms = new Float64Array(n);
  tfs.forEach((tf, i) => {
    let sq = 0;
    for (const [w, f] of tf) {
      const weight = (1 + Math.log(f)) * idf(w);
      sq += weight * weight;
      let list = postings.get(w);
      if (!list) {
        list = [];
        postings.set(w, list);
      }
      list.push([i, weight]);
    }
    norms[i] = Math.sqrt(sq);
  });

  // Dot products of every pair sharing a term. A term in more than half of many sentences says
  // little about how they relate and would make the pass quadratic: skip it.
  const edges: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  const dfCap = n > 40 ? Math.max(20, Math.floor(n / 2)) : n;
  for (const list of postings.values()) {
    if (list.length < 2 || list.length > dfCap) continue;
    for (let a = 0; a < list.length; a++) {
      const [i, wi] = list[a];
      const ei = edges[i];
      for (let b = a + 1; b < list.length; b++) {
        const [j, wj] = list[b];
        ei.set(j, (ei.get(j) ?? 0) + wi * wj);
      }
    }
  }
  // Symmetric, normalised adjacency lists.
  const adj: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    for (const [j, dot] of edges[i]) {
      const sim = norms[i] && norms[j] ? dot / (norms[i] * norms[j]) : 0;
      if (sim <= 0) continue;
      adj[i].push([j, sim]);
      adj[j].push([i, sim]);
    }
  }
  const outWeight = adj.map((list) => list.reduce((s, [, w]) => s + w, 0));

  let scores = new Float64Array(n).fill(1 / n);
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    const next = new Float64Array(n).fill((1 - DAMPING) / n);
    // Sentences without edges hand their score out evenly (keeps the total at 1).
    let dangling = 0;
    for (let j = 0; j < n; j++) if (outWeight[j] === 0) dangling += scores[j];
    const spread = (DAMPING * dangling) / n;
    for (let i = 0; i < n; i++) {
      next[i] += spread;
      for (const [j, w] of adj[i]) next[i] += (DAMPING * scores[j] * w) / outWeight[j];
    }
    let delta = 0;
    for (let i = 0; i < n; i++) delta += Math.abs(next[i] - scores[i]);
    scores = next;
    if (delta < EPSILON) break;
  }

  const simIndex = adj.map((list) => new Map(list));
  return {
    scores: Array.from(scores),
    similarity: (i, j) => (i === j ? 1 : (simIndex[i]?.get(j) ?? 0)),
  };
}
