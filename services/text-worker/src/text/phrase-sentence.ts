/**
 * A sentence that carries a required phrase the text does not contain, in the text's language, so it
 * reads as part of the summary rather than a fragment tacked on ("…a decoration. quantum physics.").
 * The phrase stays verbatim; a phrase that is already a sentence (ends with its own stop) is kept.
 */
const PHRASE_SENTENCE: Record<string, (p: string) => string> = {
  en: (p) => `The discussion also relates to ${p}.`,
  de: (p) => `Auch das Thema „${p}“ gehört in diesen Zusammenhang.`,
  fr: (p) => `Le sujet « ${p} » s’inscrit aussi dans ce propos.`,
  es: (p) => `El tema «${p}» también guarda relación con lo expuesto.`,
  it: (p) => `Anche il tema «${p}» è legato a quanto detto.`,
  nl: (p) => `Ook het onderwerp ‘${p}’ hangt hiermee samen.`,
  pt: (p) => `O tema «${p}» também se relaciona com o que foi dito.`,
  sv: (p) => `Även ämnet ”${p}” hör till sammanhanget.`,
  pl: (p) => `Z tym wiąże się także temat „${p}”.`,
  id: (p) => `Pembahasan ini juga berkaitan dengan ${p}.`,
  tr: (p) => `Konu ayrıca “${p}” ile de ilgilidir.`,
  ru: (p) => `С этим связана и тема «${p}».`,
  uk: (p) => `З цим пов’язана й тема «${p}».`,
  el: (p) => `Με αυτά σχετίζεται και το θέμα «${p}».`,
  ja: (p) => `なお、「${p}」もこの話題に関わる点である。`,
  zh: (p) => `此外，“${p}”也与本文内容相关。`,
  ko: (p) => `또한 '${p}'도 이 논의와 관련이 있다.`,
  th: (p) => `นอกจากนี้ เรื่อง "${p}" ก็เกี่ยวข้องกับเนื้อหานี้ด้วย`,
  hi: (p) => `इस चर्चा का संबंध “${p}” से भी है।`,
  ta: (p) => `இந்த உரையாடல் “${p}” என்பதுடனும் தொடர்புடையது.`,
  ar: (p) => `ويتصل الحديث أيضًا بموضوع «${p}».`,
  fa: (p) => `این بحث با موضوع «${p}» نیز مرتبط است.`,
  tl: (p) => `May kaugnayan din ang talakayan sa ${p}.`,
  vi: (p) => `Nội dung này cũng liên quan đến ${p}.`,
};

export function sentenceWithPhrase(phrase: string, lang: string): string {
  if (/[.!?。！？…]$/u.test(phrase)) return phrase;
  return (PHRASE_SENTENCE[lang] ?? PHRASE_SENTENCE.en)(phrase);
}
