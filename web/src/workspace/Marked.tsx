import { Fragment, type ReactNode } from "react";

/** `text` with every occurrence of each of `words` marked (case-insensitive, longest first). */
export function marked(text: string, words: readonly string[]): ReactNode {
  const list = words.filter((w) => w.trim()).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!list.length) return text;
  list.sort((a, b) => b.length - a.length);
  const parts = text.split(new RegExp(`(${list.join("|")})`, "iu"));
  return parts.map((p, i) =>
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
    i % 2 === 1 ? <mark key={i}>{p}</mark> : <Fragment key={i}>{p}</Fragment>,
  );
}
