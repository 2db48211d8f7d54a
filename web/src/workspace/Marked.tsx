import { Fragment, type ReactNode } from "react";

/** A word of a script written with spaces, which can be marked as a whole word ("I" not inside "It"). */
const SPACED =
  /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Devanagari}\p{N}'’-]+$/u;

/**
 * `text` with every occurrence of each of `words` marked (case-insensitive, longest first); with
 * `wholeWords`, a word of a script written with spaces only where it stands as a word.
 */
export function marked(text: string, words: readonly string[], opts: { wholeWords?: boolean } = {}): ReactNode {
  const list = words
    .filter((w) => w.trim())
    .sort((a, b) => b.length - a.length)
    .map((w) => {
      const escaped = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return opts.wholeWords && SPACED.test(w) ? `(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])` : escaped;
    });
  if (!list.length) return text;
  const parts = text.split(new RegExp(`(${list.join("|")})`, "iu"));
  return parts.map((p, i) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
    i % 2 === 1 ? <mark key={i}>{p}</mark> : <Fragment key={i}>{p}</Fragment>,
  );
}
