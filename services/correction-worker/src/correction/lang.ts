/** Which language family of rules applies to a transcript (the UI language may differ from it). */

/** en/de/fr/es have full rule sets; ja/zh have their own; "other" gets whitespace and punctuation only. */
export type TextLang = "en" | "de" | "fr" | "es" | "ja" | "zh" | "other";

const KANA = /[\u3040-\u30ff]/g;
const HAN = /[\u4e00-\u9fff\u3400-\u4dbf]/g;
const LATIN_WORD = /[a-zà-öø-ÿß']+/gi;

const STOPWORDS: Record<"en" | "de" | "fr" | "es", Set<string>> = {
  en: new Set(
    "the and is you i to of it that was what we in my so do did this have they but for with are not just".split(" "),
  ),
  de: new Set(
    "und ich die der das ist nicht sie wir es ein eine haben war wie auch mit den dem zu auf sind aber bei".split(" "),
  ),
  fr: new Set(
    "le la les et je est vous nous une des que pas c'est ça oui du au avec pour dans mais très j'ai alors comment bien on il elle qui en".split(
      " ",
    ),
  ),
  es: new Set("el los que y es yo usted una pero por con muy para las del está como más sí también".split(" ")),
};

/** Detects the rule family from the text itself, falling back to the UI language when unsure. */
export function detectTextLang(text: string, uiLanguage: string): TextLang {
  const sample = text.slice(0, 20_000);
  const kana = sample.match(KANA)?.length ?? 0;
  const han = sample.match(HAN)?.length ?? 0;
  const words = sample.toLowerCase().match(LATIN_WORD) ?? [];
  const ui = (uiLanguage || "").toLowerCase().split(/[-_]/)[0];
  if (kana + han > words.length) {
    if (kana > 0 && kana * 20 >= han) return "ja";
    if (han > 0) return ui === "ja" && kana > 0 ? "ja" : "zh";
  }
  if (words.length === 0) return kana + han > 0 ? (kana > 0 ? "ja" : "zh") : "other";
  const scores = (Object.keys(STOPWORDS) as Array<keyof typeof STOPWORDS>).map((lang) => ({
    lang,
    n: words.reduce((acc, w) => acc + (STOPWORDS[lang].has(w) ? 1 : 0), 0),
  }));
  scores.sort((a, b) => b.n - a.n);
  const [best, second] = scores;
  const nonAscii = /[^ -~]/.test(sample.replace(/[\s\p{P}\p{N}\p{S}]/gu, "").replace(/[à-öø-ÿßœæ]/gi, ""));
  if (nonAscii) return "other";
  const minHits = words.length >= 20 ? 3 : 1;
  if (best.n >= minHits && best.n >= second.n * 1.5 && best.n >= words.length * 0.08) return best.lang;
  if (words.length < 20 && (ui === "en" || ui === "de" || ui === "fr" || ui === "es")) return ui;
  return "other";
}

export function isSpaceless(lang: TextLang): boolean {
  return lang === "ja" || lang === "zh";
}
