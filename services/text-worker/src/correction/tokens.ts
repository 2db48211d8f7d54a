/**
 * Word tokens of space-separated languages as the correction edits them: leading punctuation, the word
 * itself, trailing punctuation (the ICU words of @kikitori/shared/language split "e.g." and
 * "well-known", which the correction keeps whole).
 */

export interface Token {
  /** Opening punctuation glued to the word (quotes, brackets, ¿ ¡). */
  pre: string;
  /** The word (letters, digits, inner apostrophes, hyphens and dots); "" for a bare punctuation token. */
  word: string;
  /** Closing punctuation glued to the word (, . ? ! … : ; quotes, a trailing "-" of a cut word). */
  post: string;
  /** Offset of the token in the text it was read from. */
  at?: number;
}

const TOKEN_PARTS = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/su;

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const found of text.matchAll(/\S+/g)) {
    const m = TOKEN_PARTS.exec(found[0]);
    if (!m) continue;
    const [, pre, word, post] = m;
    if (!word) out.push({ pre: "", word: "", post: pre + post, at: found.index });
    else out.push({ pre, word, post, at: found.index });
  }
  return out;
}

export function renderTokens(tokens: Token[]): string {
  return tokens
    .map((t) => t.pre + t.word + t.post)
    .filter((s) => s.length > 0)
    .join(" ");
}

export const ENDER = /[.?!…？！。؟।]/;

export function hasEnder(t: Token | undefined): boolean {
  return !!t && ENDER.test(t.post.replace(/-+$/, ""));
}

/** Whether a token carries a comma-like pause after it. */
export function hasComma(t: Token | undefined): boolean {
  return !!t && /[,;:，、]/.test(t.post);
}

const blank = (m: string) => " ".repeat(m.length);

/**
 * Non-speech tags of ASR engines: [Music], (applause), <sil>, ++NOISE++, <s>, and "(2)"
 * pronunciation variants. Replaced by spaces of the same length, so offsets stay valid.
 */
export function stripAsrArtifacts(text: string): string {
  return text
    .replace(
      /[[(](?:music|applause|laughter|laughs|noise|silence|blank_audio|background noise|inaudible noise|sil|音楽|拍手|笑)[\])]/giu,
      blank,
    )
    .replace(/<\/?s>|<sil>|\[?\+\+[a-z_]+\+\+\]?|\[(?:noise|sil|breath|cough|smack|um|uh)\]/gi, blank)
    .replace(/(?<=\p{L})\(\d\)/gu, blank)
    .replace(/♪+/g, blank);
}
