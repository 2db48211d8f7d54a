/**
 * The offline title and heading generator. Titles combine the text's key phrases in headline
 * patterns of the text's language; heading i names the key phrases most particular to block i of
 * ceil(lines / numHeadings) lines (the same blocks the web app places the headings on).
 *
 * The custom request steers; it never supplies content. Its words choose the angle (phrases of the
 * text holding them rank first, quoted terms too when the text contains them), the tone (formal or
 * casual patterns) and the form (question, short, list/numbered); a word of the request that the text
 * does not contain never reaches a title. Every word of a title is a word of the text or a fixed word
 * of its headline pattern (grounded), and the titles of one run differ in their words, not only in
 * their order (diverse). A repeated run on the same text gets the next set of combinations (variant).
 */
import { charCount, headingBlocks, textLines } from "@kikitori/shared";
import { detectLanguage, spacingOf, splitSentences, tokenize, wordBoundaries } from "@kikitori/shared/language";
import { documentWordFreq, foldWord, type KeyPhrase, keyPhrases, overlaps, topKeyPhrases } from "./keyphrases.ts";
import { findSpeakerLabels } from "./labels.ts";

export interface TitlesRequest {
  text: string;
  numTitles: number;
  numHeadings: number;
  customPrompt: string;
  language?: string;
  /** 0 for the first run on a text; n for the n-th repeat, which gets other combinations. */
  variant?: number;
}

export interface TitlesAnswer {
  titles: string[];
  headings: string[];
}

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

interface Patterns {
  normal: string[];
  question: string[];
  short: string[];
  list: string[];
  interview: string[];
  meeting: string[];
  formal: string[];
  casual: string[];
  /** Joins two phrases in a heading. */
  pair: string;
}

/** Headline patterns per language. {A} {B} {C}: key phrases; {G}: the interviewee; {N}: a count. */
const PATTERNS: Record<string, Patterns> = {
  en: {
    normal: [
      "{A}: {B} and {C}",
      "{A} and {B}",
      "From {A} to {B}",
      "{A} in focus: {B}",
      "{B} and the future of {A}",
      "A closer look at {A} and {B}",
      "Rethinking {A}",
      "{A}, {B} and {C}",
    ],
    question: [
      "What's next for {A}?",
      "{A}: what role for {B}?",
      "Is it time to rethink {A}?",
      "What can {A} teach us about {B}?",
      "Where next for {A} and {B}?",
      "{A} or {B}?",
    ],
    // Headline style with a noun phrase in each slot: no bare "{A}" or "On {A}" fragments.
    short: ["{A} and {B}", "{A}: {B}", "{A} in focus", "Rethinking {A}"],
    list: [
      "{N} things to know about {A}",
      "{N} takeaways on {A} and {B}",
      "{A}: {N} key points",
      "{N} lessons from {A}",
    ],
    interview: ["{G} on {A}", "{G} on {A} and {B}", "In conversation with {G}: {A}"],
    meeting: ["Meeting notes: {A} and {B}", "{A}, {B}, {C}: decisions and next steps"],
    formal: ["{A} and {B}: an overview", "{A}: a review of {B}", "The state of {A}", "{A}, {B} and {C}: an assessment"],
    casual: [
      "Let's talk about {A}",
      "{A}? Here's what you need to know",
      "Everything you wanted to know about {A}",
      "All about {A} and {B}",
    ],
    pair: "{A} and {B}",
  },
  de: {
    normal: [
      "{A}: {B} und {C}",
      "{A} und {B}",
      "Von {A} bis {B}",
      "{A} im Fokus: {B}",
      "{B} und die Zukunft von {A}",
      "Ein genauer Blick auf {A} und {B}",
      "Alles über {A}",
      "{A} neu gedacht",
      "{A}, {B} und {C}",
    ],
    question: [
      "Was bedeutet {A} für {B}?",
      "Wie geht es weiter mit {A}?",
      "Ist {A} die Lösung für {B}?",
      "Welche Rolle spielt {B} für {A}?",
      "{A} oder {B}?",
    ],
    short: ["{A} und {B}", "{A}: {B}", "{A} im Fokus", "{A} neu gedacht"],
    list: ["{N} Dinge, die man über {A} wissen sollte", "{N} Erkenntnisse zu {A} und {B}", "{A}: {N} wichtige Punkte"],
    interview: ["{G} über {A}", "{G} über {A} und {B}", "Im Gespräch mit {G}: {A}"],
    meeting: ["Protokoll: {A} und {B}", "{A}, {B}, {C}: Ergebnisse und nächste Schritte"],
    formal: ["{A} und {B}: ein Überblick", "{A}: eine Bestandsaufnahme", "{A}, {B} und {C}: eine Einordnung"],
    casual: ["Was Sie über {A} wissen sollten", "Darum geht's: {A} und {B}", "{A}? Das steckt dahinter"],
    pair: "{A} und {B}",
  },
  ja: {
    normal: [
      "{A}と{B}",
      "{A}：{B}と{C}",
      "{A}から考える{B}",
      "いま知りたい{A}",
      "{A}と{B}のこれから",
      "{A}の現在地",
      "{A}、{B}、{C}",
    ],
    question: ["{A}は{B}をどう変えるのか", "なぜ今、{A}なのか", "{A}の課題とは何か", "{A}はこれからどうなるのか"],
    short: ["{A}", "{A}と{B}", "{A}の話", "{A}・{B}"],
    list: ["{A}について知っておきたい{N}つのこと", "{A}：{N}つのポイント", "{A}と{B}、{N}つの要点"],
    interview: ["{G}さんに聞く{A}", "{G}さんが語る{A}と{B}", "インタビュー：{G}さんと{A}"],
    meeting: ["議事録：{A}と{B}", "{A}・{B}に関する決定事項"],
    formal: ["{A}に関する考察", "{A}と{B}の現状と課題", "{A}をめぐる論点"],
    casual: ["ざっくりわかる{A}", "{A}って実際どうなの？", "{A}と{B}の話をしよう"],
    pair: "{A}と{B}",
  },
  zh: {
    normal: ["{A}与{B}", "{A}：{B}与{C}", "从{A}看{B}", "聚焦{A}", "{A}的现在与未来", "读懂{A}", "{A}、{B}与{C}"],
    question: ["{A}将如何改变{B}？", "为什么{A}如此重要？", "{A}的未来在哪里？", "{A}能解决{B}吗？"],
    short: ["{A}", "{A}与{B}", "谈{A}", "{A}、{B}"],
    list: ["关于{A}的{N}个要点", "{A}：{N}个关键问题", "{N}个角度看{A}"],
    interview: ["{G}谈{A}", "专访{G}：{A}与{B}", "对话{G}：{A}"],
    meeting: ["会议纪要：{A}与{B}", "关于{A}和{B}的决定"],
    formal: ["关于{A}与{B}的分析", "{A}的现状与展望", "{A}问题研究"],
    casual: ["一文看懂{A}", "聊聊{A}和{B}", "{A}到底怎么样？"],
    pair: "{A}与{B}",
  },
};

/** Any other language: punctuation-only patterns, no words of a language the text may not be in. */
const GENERIC: Patterns = {
  normal: ["{A}: {B}", "{A} · {B} · {C}", "{A} — {B}", "{A}", "{A}, {B}"],
  question: ["{A}?", "{A} — {B}?"],
  short: ["{A}", "{A} · {B}"],
  list: ["{A}: {N}", "{N} × {A}"],
  interview: ["{G}: {A}", "{G} — {A} · {B}"],
  meeting: ["{A} · {B}", "{A} · {B} · {C}"],
  formal: ["{A}: {B}", "{A} — {B} — {C}"],
  casual: ["{A}!", "{A} + {B}"],
  pair: "{A} · {B}",
};

/** Every fixed word of the language's headline patterns (the only words a title may add to the text's). */
export function patternWords(lang: string): Set<string> {
  const p = PATTERNS[lang] ?? GENERIC;
  const all = [...Object.values(p)].flat().join(" \n ");
  return wordSet(all.replace(/\{[ABCGN]\}/g, " "), lang);
}

const INTERVIEWER =
  /^(?:interviewer|interview|host|moderator|question|q|a|answer|frage|antwort|f|interviewerin|聞き手|インタビュアー|司会|質問|记者|主持人|问|答|采访者)$/iu;
const MEETING =
  /(?:attendees|agenda|action items|minutes|protokoll|tagesordnung|teilnehmende|議事録|出席者|会议纪要|参会人员|会议决定)/iu;

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
function focusedPhrases(all: readonly KeyPhrase[], focus: ReadonlySet<string>, lang: string): KeyPhrase[] {
  if (focus.size === 0) return [];
  // Folded like the phrases' words ("patents" of a request finds "patent" in the text).
  const words = [...focus].map((f) => foldWord(f, lang));
  return topKeyPhrases(
    all.filter((p) => words.some((f) => p.words.includes(f) || (f.length > 2 && p.key.includes(f)))),
    3,
  );
}

/** The quoted terms of the request as the text writes them (any case); terms the text lacks are dropped. */
function quotedInText(quoted: readonly string[], text: string): string[] {
  const lower = text.toLocaleLowerCase();
  const out: string[] = [];
  for (const q of quoted) {
    const at = lower.indexOf(q.toLocaleLowerCase());
    if (at >= 0 && q.length === q.toLocaleLowerCase().length) out.push(text.slice(at, at + q.length));
  }
  return out;
}

export function titlesOffline(req: TitlesRequest): TitlesAnswer {
  const lang = detectLanguage(req.text, req.language);
  const steering = parseSteering(req.customPrompt, lang);
  const patterns = PATTERNS[lang] ?? GENERIC;
  const wordFreq = documentWordFreq(req.text, lang);
  const all = keyPhrases(req.text, lang, { focus: steering.focus, wordFreq });
  // Titles are built from phrases the text repeats; one-off phrases only when there are too few.
  const repeated = topKeyPhrases(
    all.filter((p) => p.count >= 2),
    8,
  );
  const general = repeated.length >= 3 ? repeated : topKeyPhrases(all, 8);
  // The request's angle leads: the text's own phrases about it, even when the text names them once.
  const focused = focusedPhrases(all, steering.focus, lang);
  const top = [...focused, ...general.filter((p) => !focused.some((f) => f.key === p.key))];
  return {
    titles: makeTitles(req, lang, patterns, steering, top),
    headings: makeHeadings(req, lang, patterns, steering, all, wordFreq),
  };
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

function capitalise(s: string, lang: string): string {
  // Japanese and Chinese titles stay as written (a Latin word in them keeps its case: "iPhone").
  if (spacingOf(lang) === "none") return s;
  return s.replace(/^\p{Ll}/u, (c) => c.toLocaleUpperCase(lang));
}

function fill(pattern: string, slots: Record<string, string>): string {
  return pattern.replace(/\{([ABCGN])\}/g, (_, k: string) => slots[k] ?? "");
}

function slotsOf(pattern: string): string[] {
  return [...new Set([...pattern.matchAll(/\{([ABC])\}/g)].map((m) => m[1]))];
}

/** The interviewee's name when the text is an interview with speaker labels. */
function guestName(text: string): string | null {
  const counts = new Map<string, number>();
  for (const l of findSpeakerLabels(text).values()) counts.set(l.name, (counts.get(l.name) ?? 0) + 1);
  if (counts.size < 2) return null;
  const guests = [...counts.entries()].filter(([name]) => !INTERVIEWER.test(name)).sort((a, b) => b[1] - a[1]);
  if (guests.length !== 1 && !(guests.length > 1 && guests[0][1] > guests[1][1] * 2)) return null;
  return guests[0][0];
}

function normaliseTitle(s: string): string {
  return s.replace(/\s+/gu, " ").trim();
}

function titleKey(s: string): string {
  return s.normalize("NFKC").toLocaleLowerCase().replace(/\s+/gu, " ").trim();
}

/** The content words of a title, folded, as a set: two titles with the same set say the same thing. */
function wordSet(title: string, lang: string): Set<string> {
  const words = tokenize(title, lang)
    .filter((t) => t.content && !/^\d+$/u.test(t.norm))
    .map((t) => foldWord(t.norm, lang));
  // Spaceless scripts: ICU may cut a phrase differently inside a title; compare by characters.
  if (spacingOf(lang) === "none") return new Set([...title].filter((c) => /[\p{L}\p{N}]/u.test(c)));
  return new Set(words);
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

interface Candidate {
  title: string;
  key: string;
  words: Set<string>;
  pattern: string;
  /** Lower is better: steered patterns and the best phrases first. */
  rank: number;
  tier: number;
}

function makeTitles(
  req: TitlesRequest,
  lang: string,
  patterns: Patterns,
  steering: Steering,
  top: KeyPhrase[],
): string[] {
  const quoted = quotedInText(steering.quoted, req.text);
  const phrases = [
    ...quoted,
    ...top
      .map((p) => p.surface)
      .filter((s) => !quoted.some((q) => overlaps(q.toLocaleLowerCase(), s.toLocaleLowerCase()))),
  ].slice(0, 8);
  const guest = guestName(req.text);
  const meeting = MEETING.test(req.text);
  // Tier 0: what the request asks for (form, then tone); tier 1: the kind of text and the general ones.
  const steered: string[] = [];
  if (steering.question) steered.push(...patterns.question);
  if (steering.list) steered.push(...patterns.list);
  if (steering.short) steered.push(...patterns.short);
  if (steering.tone) steered.push(...patterns[steering.tone]);
  const rest: string[] = [];
  if (guest) rest.push(...patterns.interview);
  else if (meeting) rest.push(...patterns.meeting);
  rest.push(...(steering.short ? patterns.short : patterns.normal));
  const tiers = steered.length ? [steered, rest.filter((r) => !steered.includes(r))] : [rest];

  // A title's words are its pattern's fixed words and its phrases' words, so both sets are counted once;
  // a phrase with a word the text lacks (never expected: phrases are cut from the text) is left out.
  const textWords = wordSet(req.text, lang);
  const phraseWords = phrases.map((p) => wordSet(p, lang));
  const usable = phraseWords.map((w) => [...w].every((x) => textWords.has(x)));
  const guestWords = wordSet(guest ?? "", lang);
  const fixedWords = new Map<string, Set<string>>();
  const n = Math.max(3, Math.min(10, req.numHeadings));
  const candidates: Candidate[] = [];
  const byKey = new Set<string>();
  const m = phrases.length;
  tiers.forEach((list, tier) => {
    list.forEach((pattern, t) => {
      if (pattern.includes("{G}") && !guest) return;
      const slots = slotsOf(pattern);
      if (slots.length > m) return;
      let fixed = fixedWords.get(pattern);
      if (!fixed) {
        fixed = wordSet(pattern.replace(/\{[ABCGN]\}/g, " "), lang);
        fixedWords.set(pattern, fixed);
      }
      // Every ordered choice of distinct phrases for the slots (the best phrases first).
      const picks: number[][] = [];
      for (let a = 0; a < m; a++) {
        if (slots.length < 2) picks.push([a]);
        else
          for (let b = 0; b < m; b++) {
            if (b === a) continue;
            if (slots.length < 3) picks.push([a, b]);
            else for (let c = 0; c < m; c++) if (c !== a && c !== b) picks.push([a, b, c]);
          }
      }
      for (const pick of picks.slice(0, 60)) {
        const used = pick.slice(0, slots.length);
        if (!used.every((i) => usable[i])) continue;
        const [a, b, c] = used;
        const title = normaliseTitle(
          capitalise(
            fill(pattern, { A: phrases[a], B: phrases[b ?? 0], C: phrases[c ?? 0], G: guest ?? "", N: String(n) }),
            lang,
          ),
        );
        const key = titleKey(title);
        if (!title || byKey.has(key)) continue;
        byKey.add(key);
        const words = new Set([...fixed, ...used.flatMap((i) => [...phraseWords[i]])]);
        if (pattern.includes("{G}")) for (const w of guestWords) words.add(w);
        candidates.push({ title, key, words, pattern, rank: t + a + (b ?? 0) + (c ?? 0), tier });
      }
    });
  });

  // Greedy choice for variety: each next title shares as few words as possible with those taken,
  // prefers an unused pattern, and never repeats the word set of a taken title in another order.
  const pickRun = (count: number, before: readonly Candidate[]): Candidate[] => {
    const taken: Candidate[] = [];
    const usedPatterns = new Set<string>();
    while (taken.length < count) {
      let best: Candidate | null = null;
      let bestCost = Number.POSITIVE_INFINITY;
      for (const c of candidates) {
        if (taken.includes(c)) continue;
        let overlap = 0;
        let same = false;
        for (const t of taken) {
          const j = jaccard(c.words, t.words);
          if (j === 1) same = true;
          overlap = Math.max(overlap, j);
        }
        if (same) continue;
        // Titles of an earlier run: not again, not even reordered, and little of their wording.
        let earlier = 0;
        for (const t of before) {
          const j = jaccard(c.words, t.words);
          if (j === 1) same = true;
          earlier = Math.max(earlier, j);
        }
        if (same) continue;
        const cost = c.tier * 10 + overlap * 3 + earlier * 2 + (usedPatterns.has(c.pattern) ? 1 : 0) + c.rank * 0.05;
        if (cost < bestCost) {
          best = c;
          bestCost = cost;
        }
      }
      if (!best) break;
      taken.push(best);
      usedPatterns.add(best.pattern);
    }
    return taken;
  };
  // A repeated run takes the next combinations, as long as there are enough new ones.
  let shown: Candidate[] = [];
  let chosen = pickRun(req.numTitles, shown);
  for (let v = 0; v < (req.variant ?? 0); v++) {
    shown = [...shown, ...chosen];
    const next = pickRun(req.numTitles, shown);
    if (next.length < req.numTitles) {
      shown = [];
      chosen = pickRun(req.numTitles, shown);
    } else chosen = next;
  }

  const titles: string[] = chosen.map((c) => c.title);
  const seen = new Set(chosen.map((c) => c.key));
  const push = (t: string) => {
    const title = normaliseTitle(t);
    const key = titleKey(title);
    if (!title || seen.has(key) || titles.length >= req.numTitles) return;
    seen.add(key);
    titles.push(title);
  };
  // Too few phrases for the count asked: the text's leading sentences, shortened, then numbered variants.
  if (titles.length < req.numTitles) {
    for (const s of splitSentences(req.text, lang)) {
      if (titles.length >= req.numTitles) break;
      push(shorten(s.text, lang, 60));
    }
  }
  const base = titles[0] ?? shorten(req.text, lang, 40);
  for (let k = 2; titles.length < req.numTitles; k++) push(`${base} (${k})`);
  return titles;
}

/** The text cut to about `max` characters at a word boundary, with "…" when cut. */
function shorten(text: string, lang: string, max: number): string {
  const t = normaliseTitle(text);
  if (charCount(t) <= max) return t;
  let cut = 0;
  for (const b of wordBoundaries(t, lang)) if (charCount(t.slice(0, b)) <= max - 1) cut = b;
  if (cut === 0) cut = [...t].slice(0, max - 1).join("").length;
  return `${t.slice(0, cut).trimEnd()}…`;
}

function makeHeadings(
  req: TitlesRequest,
  lang: string,
  patterns: Patterns,
  steering: Steering,
  docPhrases: KeyPhrase[],
  wordFreq: ReadonlyMap<string, number>,
): string[] {
  const lines = textLines(req.text);
  const blocks = headingBlocks(lines.length, req.numHeadings);
  const blockTexts = blocks.map((b) => lines.slice(b.start, b.end).join("\n"));
  const perBlock = blockTexts.map((t) => keyPhrases(t, lang, { focus: steering.focus, context: req.text, wordFreq }));
  // How particular a phrase is to its block: phrases in every block say little about any one of them.
  const df = new Map<string, number>();
  for (const list of perBlock) for (const p of new Set(list.map((x) => x.key))) df.set(p, (df.get(p) ?? 0) + 1);
  const B = blocks.length;
  const ranked = perBlock.map((list) =>
    list
      .map((p) => ({ ...p, score: p.score * (B > 1 ? Math.log(1 + B / (df.get(p.key) ?? 1)) : 1) }))
      .sort((a, b) => b.score - a.score || a.firstAt - b.firstAt),
  );

  const used: string[] = [];
  const headings: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < req.numHeadings; i++) {
    const candidates = i < B ? ranked[i] : docPhrases;
    const free = candidates.filter((p) => !used.some((u) => overlaps(u, p.key)));
    let heading = "";
    const first = free[0];
    if (first) {
      used.push(first.key);
      const second = steering.short
        ? undefined
        : free.find((p) => !overlaps(p.key, first.key) && p.count >= 2 && p.score >= first.score * 0.7);
      if (second) used.push(second.key);
      heading = second ? fill(patterns.pair, { A: first.surface, B: second.surface }) : first.surface;
    } else if (i < B) {
      // A block without any key phrase (numbers, greetings): name it by its first words.
      const firstLine = blockTexts[i].split("\n").find((l) => l.trim()) ?? "";
      heading = firstLine ? shorten(firstLine, lang, 40) : "";
    }
    if (!heading) {
      const spare = docPhrases.find((p) => !used.some((u) => overlaps(u, p.key)));
      if (spare) used.push(spare.key);
      heading = spare?.surface ?? shorten(req.text, lang, 30);
    }
    heading = capitalise(normaliseTitle(heading), lang);
    if (steering.list) heading = `${i + 1}. ${heading}`;
    let unique = heading;
    for (let k = 2; seen.has(titleKey(unique)); k++) unique = `${heading} (${k})`;
    seen.add(titleKey(unique));
    headings.push(unique);
  }
  return headings;
}
