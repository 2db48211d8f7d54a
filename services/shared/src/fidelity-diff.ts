// The word-level diff of the fidelity view, stitched from pieces along the alignment (fidelity.ts
// makes the pieces): jsdiff on each sentence against its stretch, the rest kept as removed or added.
import { diffArrays } from "diff";
import type { FidelityOp } from "./fidelity-schema.ts";
import type { WordToken } from "./language/index.ts";

/** A piece of the diff: transcript words only, interview words only, or a sentence and its stretch to diff. */
export type DiffPiece = { removed?: WordToken[]; added?: WordToken[]; pair?: [WordToken[], WordToken[]] };

/** The pieces as diff operations, neighbours of one kind joined; null when it takes longer than `timeout` ms. */
export function stitchDiff(pieces: DiffPiece[], joiner: string, timeout: number): FidelityOp[] | null {
  const ops: FidelityOp[] = [];
  const push = (op: FidelityOp["op"], tokens: WordToken[]) => {
    if (!tokens.length) return;
    const text = tokens.map((t) => t.surface).join(joiner);
    const last = ops.at(-1);
    if (last && last.op === op) last.text += joiner + text;
    else ops.push({ op, text });
  };
  const started = Date.now();
  for (const p of pieces) {
    if (p.removed) push("removed", p.removed);
    if (p.added) push("added", p.added);
    if (p.pair) {
      const changes = diffArrays(p.pair[0], p.pair[1], {
        comparator: (x: WordToken, y: WordToken) => x.norm === y.norm,
      });
      for (const c of changes) push(c.added ? "added" : c.removed ? "removed" : "same", c.value as WordToken[]);
    }
    if (Date.now() - started > timeout) return null;
  }
  return ops;
}
