/**
 * Speaker clustering for the `classic` diarization engine: agglomerative clustering by ΔBIC over
 * the frames of each piece of speech (Chen & Gopalakrishnan 1998), then re-assignment by likelihood.
 * Pure and deterministic.
 */

export interface ClusterResult {
  labels: Int32Array;
  k: number;
}

function renumber(labels: Int32Array): Int32Array {
  const ids = new Map<number, number>();
  return Int32Array.from(labels, (l) => {
    if (!ids.has(l)) ids.set(l, ids.size);
    return ids.get(l) as number;
  });
}

/**
 * Sufficient statistics of a diagonal Gaussian over frames: the frame count, and per dimension the
 * sum and sum of squares. The last dimension may count fewer frames (`counts`): pitch exists only on
 * voiced frames.
 */
export interface FrameStats {
  counts: Float64Array;
  sum: Float64Array;
  sumsq: Float64Array;
}

const BIC_VAR_FLOOR = 1e-3;

function addStats(a: FrameStats, b: FrameStats): FrameStats {
  return {
    counts: a.counts.map((c, k) => c + b.counts[k]),
    sum: a.sum.map((s, k) => s + b.sum[k]),
    sumsq: a.sumsq.map((s, k) => s + b.sumsq[k]),
  };
}

/** n · log σ² of one dimension (0 without frames). */
function nLogVar(s: FrameStats, k: number): number {
  const n = s.counts[k];
  if (n < 2) return 0;
  const mean = s.sum[k] / n;
  return n * Math.log(Math.max(BIC_VAR_FLOOR, s.sumsq[k] / n - mean * mean));
}

/**
 * ΔBIC of merging two clusters (Chen & Gopalakrishnan, diagonal covariances): the gain in
 * likelihood of modelling them apart, minus λ × the cost of the extra parameters. Negative: one
 * voice explains both better. A dimension counts only where both sides have at least 3 frames of it.
 */
export function deltaBic(a: FrameStats, b: FrameStats, lambda = 1): number {
  const ab = addStats(a, b);
  let gain = 0;
  let params = 0;
  for (let k = 0; k < ab.counts.length; k++) {
    if (a.counts[k] < 3 || b.counts[k] < 3) continue;
    gain += 0.5 * (nLogVar(ab, k) - nLogVar(a, k) - nLogVar(b, k));
    params += 2;
  }
  return gain - lambda * 0.5 * params * Math.log(ab.counts[0]);
}

/**
 * Agglomerative clustering by ΔBIC: every item starts as a cluster of its frames; the pair with the
 * lowest ΔBIC merges (their statistics pooled) until `k` clusters remain, or, without k, while a
 * merge still lowers the BIC (ΔBIC < 0) and then down to maxK. Pooling makes a cluster's model
 * sharper as it grows, which short pieces alone cannot give. Labels by first appearance.
 */
export function bicClusters(
  items: FrameStats[],
  opts: { k?: number; maxK?: number; lambda?: number; exactLimit?: number } = {},
): ClusterResult {
  const limit = Math.max(8, opts.exactLimit ?? EXACT_LIMIT);
  return items.length <= limit ? exactBicClusters(items, opts) : blockBicClusters(items, opts, limit);
}

/**
 * Past this many pieces (about 40 minutes of continuous speech) the clustering goes block by block:
 * the all-pairs merge is cubic in time and quadratic in memory, which hours of speech cannot afford.
 */
export const EXACT_LIMIT = 400;

/**
 * Near-linear ΔBIC clustering for long recordings: blocks of consecutive pieces are clustered on their
 * own (merging while it lowers the BIC, then down to maxK), and the blocks' clusters, pooled, are then
 * clustered together (with the caller's k) the same way, recursively while they are still too many.
 */
function blockBicClusters(
  items: FrameStats[],
  opts: { k?: number; maxK?: number; lambda?: number },
  limit: number,
): ClusterResult {
  const size = Math.floor(limit / 2);
  const groupOf = new Int32Array(items.length);
  const groups: FrameStats[] = [];
  for (let from = 0; from < items.length; from += size) {
    const part = items.slice(from, from + size);
    const { labels, k } = exactBicClusters(part, { maxK: opts.maxK, lambda: opts.lambda });
    const pooled = Array.from({ length: k }, (): FrameStats | null => null);
    labels.forEach((l, i) => {
      groupOf[from + i] = groups.length + l;
      pooled[l] = pooled[l] ? addStats(pooled[l] as FrameStats, part[i]) : part[i];
    });
    for (const g of pooled) if (g) groups.push(g);
  }
  const top = bicClusters(groups, { ...opts, exactLimit: limit });
  const labels = renumber(Int32Array.from(groupOf, (g) => top.labels[g]));
  return { labels, k: Math.max(...labels) + 1 };
}

/** The all-pairs agglomerative clustering (exact; for up to EXACT_LIMIT items). */
function exactBicClusters(items: FrameStats[], opts: { k?: number; maxK?: number; lambda?: number }): ClusterResult {
  const n = items.length;
  if (n === 0) return { labels: new Int32Array(0), k: 0 };
  const lambda = opts.lambda ?? 1;
  const target = Math.max(1, Math.min(n, opts.k ?? 1));
  const maxK = Math.max(1, opts.maxK ?? 6);
  const stats: Array<FrameStats | null> = [...items];
  const owner = Int32Array.from({ length: n }, (_, i) => i);
  const d = new Float64Array(n * n).fill(Number.POSITIVE_INFINITY);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) d[i * n + j] = deltaBic(items[i], items[j], lambda);
  let clusters = n;
  while (clusters > target) {
    let best = Number.POSITIVE_INFINITY;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (!stats[i]) continue;
      for (let j = i + 1; j < n; j++) {
        if (stats[j] && d[i * n + j] < best) {
          best = d[i * n + j];
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    if (!opts.k && best >= 0 && clusters <= maxK) break;
    stats[bi] = addStats(stats[bi] as FrameStats, stats[bj] as FrameStats);
    stats[bj] = null;
    for (let x = 0; x < n; x++) if (owner[x] === bj) owner[x] = bi;
    clusters--;
    for (let x = 0; x < n; x++) {
      if (!stats[x] || x === bi) continue;
      const v = deltaBic(stats[bi] as FrameStats, stats[x] as FrameStats, lambda);
      if (x < bi) d[x * n + bi] = v;
      else d[bi * n + x] = v;
    }
  }
  const labels = renumber(owner);
  return { labels, k: Math.max(...labels) + 1 };
}

function subStats(a: FrameStats, b: FrameStats): FrameStats {
  return {
    counts: a.counts.map((c, k) => c - b.counts[k]),
    sum: a.sum.map((s, k) => s - b.sum[k]),
    sumsq: a.sumsq.map((s, k) => s - b.sumsq[k]),
  };
}

/** Log-likelihood of an item's frames under a cluster's diagonal Gaussian, over the dimensions `dims`. */
function logLikelihood(item: FrameStats, model: FrameStats, dims: number[]): number {
  let ll = 0;
  for (const k of dims) {
    const m = model.counts[k];
    const mean = model.sum[k] / m;
    const v = Math.max(BIC_VAR_FLOOR, model.sumsq[k] / m - mean * mean);
    const n = item.counts[k];
    ll -= 0.5 * (n * Math.log(2 * Math.PI * v) + (item.sumsq[k] - 2 * mean * item.sum[k] + n * mean * mean) / v);
  }
  return ll;
}

/**
 * Re-assignment (the "re-segmentation" of classic diarization): each item moves to the cluster
 * whose Gaussian (pooled over its other members) explains its frames best; repeated until nothing
 * moves (at most `rounds`). Fixes items that an early, greedy merge put on the wrong side. A cluster
 * is never emptied. Pure.
 */
export function refineByLikelihood(items: FrameStats[], labels: Int32Array, rounds = 8): Int32Array {
  const k = labels.length ? Math.max(...labels) + 1 : 0;
  if (k < 2) return labels;
  const out = Int32Array.from(labels);
  for (let round = 0; round < rounds; round++) {
    const pooled: FrameStats[] = Array.from({ length: k }, () => {
      const dims = items[0].counts.length;
      return { counts: new Float64Array(dims), sum: new Float64Array(dims), sumsq: new Float64Array(dims) };
    });
    const sizes = new Array(k).fill(0);
    items.forEach((it, i) => {
      pooled[out[i]] = addStats(pooled[out[i]], it);
      sizes[out[i]]++;
    });
    let moved = 0;
    items.forEach((it, i) => {
      const own = out[i];
      if (sizes[own] <= 1) return;
      const models = pooled.map((p, c) => (c === own ? subStats(p, it) : p));
      const dims: number[] = [];
      for (let d = 0; d < it.counts.length; d++) {
        if (it.counts[d] >= 3 && models.every((m) => m.counts[d] >= 3)) dims.push(d);
      }
      const scores = models.map((m) => logLikelihood(it, m, dims));
      let best = own;
      for (let c = 0; c < k; c++) if (scores[c] > scores[best] + 1e-9) best = c;
      if (best !== own) {
        out[i] = best;
        sizes[own]--;
        sizes[best]++;
        pooled[own] = subStats(pooled[own], it);
        pooled[best] = addStats(pooled[best], it);
        moved++;
      }
    });
    if (moved === 0) break;
  }
  return renumber(out);
}
