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
import { detectLanguage, spacingOf, splitSentences, wordBoundaries } from "@kikitori/shared/language";
import { documentWordFreq, type KeyPhrase, keyPhrases, overlaps, topKeyPhrases } from "./keyphrases.ts";
import { findSpeakerLabels } from "./labels.ts";
import { focusedPhrases, parseSteering, quotedInText, type Steering } from "./steering.ts";
import { type Patterns, patternsFor, wordSet } from "./title-patterns.ts";

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

const INTERVIEWER =
  /^(?:interviewer|interview|host|moderator|question|q|a|answer|frage|antwort|f|interviewerin|聞き手|インタビュアー|司会|質問|记者|主持人|问|答|采访者)$/iu;
const MEETING =
  /(?:attendees|agenda|action items|minutes|protokoll|tagesordnung|teilnehmende|議事録|出席者|会议纪要|参会人员|会议决定)/iu;

export function titlesOffline(req: TitlesRequest): TitlesAnswer {
  const lang = detectLanguage(req.text, req.language);
  const steering = parseSteering(req.customPrompt, lang);
  const patterns = patternsFor(lang);
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

/** Every ordered choice of distinct phrases (of `phraseCount`) for 1 to 3 slots, the best phrases first. */
function slotPicks(phraseCount: number, slotCount: number): number[][] {
  const picks: number[][] = [];
  for (let first = 0; first < phraseCount; first++) {
    if (slotCount < 2) picks.push([first]);
    else
      for (let second = 0; second < phraseCount; second++) {
        if (second === first) continue;
        if (slotCount < 3) picks.push([first, second]);
        else
          for (let third = 0; third < phraseCount; third++)
            if (third !== first && third !== second) picks.push([first, second, third]);
      }
  }
  return picks;
}

/**
 * Greedy choice for variety: each next title shares as few words as possible with those taken,
 * prefers an unused pattern, and never repeats the word set of a taken title in another order.
 */
function pickVaried(candidates: readonly Candidate[], count: number, before: readonly Candidate[]): Candidate[] {
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
}

/** A repeated run (`variant` > 0) takes the next combinations, as long as there are enough new ones. */
function chosenForVariant(candidates: readonly Candidate[], count: number, variant: number): Candidate[] {
  let shown: Candidate[] = [];
  let chosen = pickVaried(candidates, count, shown);
  for (let v = 0; v < variant; v++) {
    shown = [...shown, ...chosen];
    const next = pickVaried(candidates, count, shown);
    if (next.length < count) {
      shown = [];
      chosen = pickVaried(candidates, count, shown);
    } else chosen = next;
  }
  return chosen;
}

/** The chosen titles, completed up to the count asked for when there were too few phrases. */
function completeTitles(chosen: readonly Candidate[], req: TitlesRequest, lang: string): string[] {
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
      for (const pick of slotPicks(m, slots.length).slice(0, 60)) {
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

  const chosen = chosenForVariant(candidates, req.numTitles, req.variant ?? 0);
  return completeTitles(chosen, req, lang);
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
