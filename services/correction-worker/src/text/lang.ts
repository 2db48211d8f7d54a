/**
 * Language of an input text, guessed from its scripts (and, for Latin-script texts, from common
 * function words). The engines answer in this language; the request's UI language is only a hint.
 */

/** Languages written without spaces between words: sentences are joined without a space. */
const SPACELESS = new Set(["ja", "zh"]);

export function isSpaceless(lang: string): boolean {
  return SPACELESS.has(lang);
}

const SCRIPT_TESTS: Array<[string, RegExp]> = [
  ["kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["han", /\p{Script=Han}/u],
  ["hangul", /\p{Script=Hangul}/u],
  ["thai", /\p{Script=Thai}/u],
  ["cyrillic", /\p{Script=Cyrillic}/u],
  ["arabic", /\p{Script=Arabic}/u],
  ["devanagari", /\p{Script=Devanagari}/u],
  ["tamil", /\p{Script=Tamil}/u],
  ["greek", /\p{Script=Greek}/u],
  ["latin", /\p{Script=Latin}/u],
];

/** A few very frequent function words per Latin-script language (for telling them apart). */
const LATIN_MARKERS: Record<string, string[]> = {
  en: ["the", "and", "is", "of", "to", "in", "that", "it", "was", "for", "with", "we", "you", "this", "are"],
  de: ["der", "die", "das", "und", "ist", "nicht", "ich", "wir", "mit", "sie", "es", "ein", "eine", "auf", "für"],
  fr: ["le", "la", "les", "et", "est", "des", "une", "que", "dans", "pour", "pas", "nous", "vous", "qui", "sur"],
  es: ["el", "la", "los", "las", "y", "es", "que", "una", "por", "para", "con", "del", "como", "pero", "muy"],
  it: ["il", "di", "che", "è", "e", "la", "per", "una", "non", "sono", "del", "con", "della", "gli", "anche"],
  nl: ["de", "het", "een", "en", "van", "is", "niet", "dat", "wij", "ik", "met", "voor", "zijn", "ook", "maar"],
  pt: ["o", "a", "os", "as", "e", "que", "não", "uma", "para", "com", "do", "da", "em", "mais", "por"],
  sv: ["och", "att", "det", "är", "som", "en", "på", "för", "med", "inte", "jag", "vi", "har", "av", "till"],
  pl: ["i", "w", "nie", "się", "na", "jest", "to", "że", "z", "do", "jak", "ale", "tak", "już", "od"],
  id: ["yang", "dan", "di", "ini", "itu", "dengan", "untuk", "tidak", "dari", "kami", "akan", "ada", "saya", "juga"],
  tr: ["ve", "bir", "bu", "da", "de", "için", "çok", "ile", "ne", "ama", "daha", "gibi", "olarak", "var"],
};

/** Best guess of the text's language (a code of spec section 2 where possible). */
export function detectLanguage(text: string, hint?: string): string {
  const sample = text.length > 6000 ? text.slice(0, 6000) : text;
  const counts: Record<string, number> = {};
  let letters = 0;
  for (const ch of sample) {
    if (!/\p{L}/u.test(ch)) continue;
    letters++;
    for (const [name, re] of SCRIPT_TESTS) {
      if (re.test(ch)) {
        counts[name] = (counts[name] ?? 0) + 1;
        break;
      }
    }
  }
  if (letters === 0) return hint ?? "en";
  const share = (name: string) => (counts[name] ?? 0) / letters;
  if (share("kana") > 0.02) return "ja";
  if (share("han") > 0.2) return hint === "ja" ? "ja" : "zh";
  if (share("hangul") > 0.2) return "ko";
  if (share("thai") > 0.2) return "th";
  if (share("cyrillic") > 0.3) return hint === "uk" ? "uk" : "ru";
  if (share("arabic") > 0.3) return hint === "fa" ? "fa" : "ar";
  if (share("devanagari") > 0.3) return "hi";
  if (share("tamil") > 0.3) return "ta";
  if (share("greek") > 0.3) return "el";
  return detectLatin(sample, hint);
}

function detectLatin(sample: string, hint?: string): string {
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  const freq = new Map<string, number>();
  for (const w of words) freq.set(w, (freq.get(w) ?? 0) + 1);
  let best = "en";
  let bestScore = 0;
  const scores: Record<string, number> = {};
  for (const [lang, markers] of Object.entries(LATIN_MARKERS)) {
    const score = markers.reduce((n, m) => n + (freq.get(m) ?? 0), 0);
    scores[lang] = score;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  // The UI language wins a near tie (short texts share many function words across languages).
  if (hint && scores[hint] !== undefined && scores[hint] >= bestScore * 0.8 && scores[hint] > 0) return hint;
  return best;
}

/** English name of a language code, for prompts. */
export function languageName(lang: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}
