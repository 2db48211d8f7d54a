/**
 * The custom request of the offline title generator: it steers (angle, tone, form) but never supplies
 * content; its words reach a title only as words of the text.
 */
import { detectLanguage, tokenize } from "@kikitori/shared/language";
import { foldWord, type KeyPhrase, topKeyPhrases } from "./keyphrases.ts";

/** What the custom request asks for, as far as an engine without a model can follow it. */
export interface Steering {
  /** Normalised topic words of the request: phrases of the text holding one rank first. */
  focus: Set<string>;
  /** Quoted terms of the request: used when (and as) the text writes them, never otherwise. */
  quoted: string[];
  question: boolean;
  short: boolean;
  list: boolean;
  tone: "formal" | "casual" | null;
}

/**
 * Words of a request that say what to do rather than what about ("focus on climate", "Titel mit
 * Schwerpunkt Klima", "気候を中心に"): not topics, so never steered on.
 */
const INSTRUCTION_WORDS = new Set([
  ...["focus", "focused", "focusing", "emphasis", "emphasise", "emphasize", "highlight", "stress", "about"],
  ...["title", "titles", "heading", "headings", "headline", "headlines", "subheading", "subheadings"],
  ...["make", "please", "write", "keep", "use", "include", "mention", "more", "less", "style", "tone"],
  ...["short", "shorter", "concise", "brief", "punchy", "question", "questions", "list", "numbered", "number"],
  ...["article", "text", "interview", "catchy", "simple", "formal", "casual", "topic", "theme", "main"],
  ...["fokus", "schwerpunkt", "titel", "überschrift", "überschriften", "bitte", "kurz", "knapp", "thema"],
  ...["中心", "焦点", "重視", "重点", "タイトル", "見出し", "テーマ", "短く", "質問", "リスト", "标题", "重点", "聚焦"],
]);

/** Phrases of the text that hold a focus word, best first. */
export function focusedPhrases(all: readonly KeyPhrase[], focus: ReadonlySet<string>, lang: string): KeyPhrase[] {
  if (focus.size === 0) return [];
  // Folded like the phrases' words ("patents" of a request finds "patent" in the text).
  const words = [...focus].map((f) => foldWord(f, lang));
  return topKeyPhrases(
    all.filter((p) => words.some((f) => p.words.includes(f) || (f.length > 2 && p.key.includes(f)))),
    3,
  );
}

/** The quoted terms of the request as the text writes them (any case); terms the text lacks are dropped. */
export function quotedInText(quoted: readonly string[], text: string): string[] {
  const lower = text.toLocaleLowerCase();
  const out: string[] = [];
  for (const q of quoted) {
    const at = lower.indexOf(q.toLocaleLowerCase());
    if (at >= 0 && q.length === q.toLocaleLowerCase().length) out.push(text.slice(at, at + q.length));
  }
  return out;
}

/** Reads the angle (focus words, quoted terms), the tone and the form out of the custom request. */
export function parseSteering(prompt: string, lang: string): Steering {
  const p = prompt.trim();
  const quoted: string[] = [];
  for (const m of p.matchAll(
    /"([^"\n]{1,60})"|“([^”\n]{1,60})”|„([^“”\n]{1,60})[“”]|「([^」\n]{1,60})」|『([^』\n]{1,60})』/gu,
  )) {
    const q = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? "").trim();
    if (q) quoted.push(q);
  }
  const focus = new Set<string>();
  if (p) {
    const promptLang = detectLanguage(p, lang);
    for (const l of new Set([lang, promptLang])) {
      for (const t of tokenize(p, l)) {
        if (!t.content || INSTRUCTION_WORDS.has(t.norm) || /^\d+$/u.test(t.norm)) continue;
        focus.add(t.norm);
      }
    }
  }
  const formal =
    /\bformal|\bserious|academic|professional|sober|neutral|sachlich|seriös|formell|wissenschaftlich|フォーマル|堅|硬い|正式|学術|严肃|正式|专业|学术/iu.test(
      p,
    );
  const casual =
    /\bcasual|\bfun\b|funny|playful|catchy|\bpop\b|friendly|light-hearted|informal|locker|witzig|lustig|peppig|カジュアル|親しみ|ポップ|くだけた|楽しい|轻松|活泼|有趣|口语/iu.test(
      p,
    );
  return {
    focus,
    quoted,
    question: /[?？]|question|interrogative|frage|fragend|質問|疑問|問いかけ|问句|疑问|提问/iu.test(p),
    short: /\bshort|concise|brief|punchy|kurz|knapp|短|簡潔|シンプル|简短|简洁/iu.test(p),
    list: /\bnumber|\bnumbered|\blist|listicle|zahl|nummer|liste|数字|番号|リスト|列表|清单|编号/iu.test(p),
    tone: formal && !casual ? "formal" : casual && !formal ? "casual" : null,
  };
}
