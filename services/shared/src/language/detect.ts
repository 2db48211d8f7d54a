/**
 * The language of a text, guessed from its scripts and, for Latin-script texts, from very frequent
 * function words. The caller's language (the UI language of the request) is only a hint: it settles
 * near ties, and Chinese characters count as Japanese only when the hint says so and kana appear.
 */

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

/**
 * Very frequent function words of each Latin-script language of the product, spoken as well as
 * written ("i", "so", "yo", "oui"), for telling them apart; the stop-word lists of stopwords.ts are for
 * ranking and far longer. A word listed for several languages ("la", "que", "en") counts for each
 * of them by its share.
 */
const LATIN_MARKERS: Record<string, string> = {
  en: "the and is of to in that it was for with we you this are i a as at be so what my they but not have just do did",
  de: "der die das und ist nicht ich wir mit sie es ein eine auf für haben war wie auch den dem zu sind aber bei",
  fr: "le la les et est des une que dans pour pas nous vous qui sur je du au avec très alors comment bien oui ça il elle on mais",
  es: "el la los las y es que una por para con del como pero muy yo usted está más sí también",
  it: "il di che è e la per una non sono del con della gli anche",
  nl: "de het een en van is niet dat wij ik met voor zijn ook maar",
  pt: "o a os as e que não uma para com do da em mais por",
  sv: "och att det är som en på för med inte jag vi har av till",
  pl: "i w nie się na jest to że z do jak ale tak już od",
  id: "yang dan di ini itu dengan untuk tidak dari kami akan ada saya juga",
  tr: "ve bir bu da de için çok ile ne ama daha gibi olarak var",
  vi: "và của là có không được các những một trong cho với này người đã",
  tl: "ang ng mga sa ay at hindi ako siya ito kung pero lang naman po",
};

/** Marker word → the languages it marks and the weight of one occurrence for each. */
const MARKER_INDEX = (() => {
  const langsOf = new Map<string, string[]>();
  for (const [lang, words] of Object.entries(LATIN_MARKERS)) {
    for (const w of words.split(" ")) langsOf.set(w, [...(langsOf.get(w) ?? []), lang]);
  }
  return new Map([...langsOf].map(([w, langs]) => [w, { langs, weight: 1 / langs.length }]));
})();

export interface LanguageGuess {
  /** A language code ("en", "ja", "pt", ...). */
  language: string;
  /**
   * Whether the text itself says so: its script, or clearly more function words of this language
   * than of any other. False when the hint or the default ("en") decided.
   */
  sure: boolean;
  /** The script most of the text's letters are in ("latin", "han", "cyrillic", ...; "none" without letters). */
  script: string;
  /** Words looked at for Latin-script function words (0 when the script decided). */
  words: number;
}

/** Characters looked at: the start of a text says its language as well as the whole. */
const SAMPLE = 6000;

/** The language of a text with how sure the guess is. */
export function guessLanguage(text: string, hint?: string): LanguageGuess {
  const sample = text.length > SAMPLE ? text.slice(0, SAMPLE) : text;
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
  if (letters === 0) return { language: hint || "en", sure: false, script: "none", words: 0 };
  const share = (name: string) => (counts[name] ?? 0) / letters;
  const byScript = (language: string, script: string): LanguageGuess => ({ language, sure: true, script, words: 0 });
  // Kana mark Japanese where Chinese characters carry the text; a few kana in a Latin text do not.
  if (share("kana") > 0.02 && share("kana") + share("han") > 0.2) return byScript("ja", "kana");
  if (share("han") > 0.2) return byScript(hint === "ja" && (counts.kana ?? 0) > 0 ? "ja" : "zh", "han");
  if (share("hangul") > 0.2) return byScript("ko", "hangul");
  if (share("thai") > 0.2) return byScript("th", "thai");
  if (share("cyrillic") > 0.3) return byScript(hint === "uk" ? "uk" : "ru", "cyrillic");
  if (share("arabic") > 0.3) return byScript(hint === "fa" ? "fa" : "ar", "arabic");
  if (share("devanagari") > 0.3) return byScript("hi", "devanagari");
  if (share("tamil") > 0.3) return byScript("ta", "tamil");
  if (share("greek") > 0.3) return byScript("el", "greek");
  return { ...guessLatin(sample, hint), script: share("latin") >= 0.5 ? "latin" : "other" };
}

/** Best guess of the text's language code (see guessLanguage). */
export function detectLanguage(text: string, hint?: string): string {
  return guessLanguage(text, hint).language;
}

function guessLatin(sample: string, hint?: string): Omit<LanguageGuess, "script"> {
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  const scores: Record<string, number> = {};
  for (const w of words) {
    const marker = MARKER_INDEX.get(w);
    if (marker) for (const lang of marker.langs) scores[lang] = (scores[lang] ?? 0) + marker.weight;
  }
  let best = "en";
  let bestScore = 0;
  let second = 0;
  for (const [lang, score] of Object.entries(scores)) {
    if (score > bestScore) {
      second = bestScore;
      best = lang;
      bestScore = score;
    } else if (score > second) {
      second = score;
    }
  }
  // Clearly ahead: enough hits, half again as many as the runner-up, and a fair share of the words.
  const sure =
    bestScore >= (words.length >= 20 ? 3 : 1) && bestScore >= second * 1.5 && bestScore >= words.length * 0.08;
  // The hint wins a near tie (short texts share many function words across languages).
  const hinted = hint && hint !== best ? (scores[hint] ?? 0) : 0;
  if (hinted > 0 && hinted >= bestScore * 0.8) return { language: hint as string, sure: false, words: words.length };
  return { language: best, sure, words: words.length };
}

/** English name of a language code, for prompts. */
export function languageName(lang: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}
