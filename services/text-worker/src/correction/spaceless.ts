/** Sentences of Japanese and Chinese transcripts (no spaces between words). */

import type { Sentence } from "./finish.ts";

/* ------------------------------------------------------------------ */
/* Japanese and Chinese                                                 */
/* ------------------------------------------------------------------ */

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー々〆〇";
const CJK_CHAR = new RegExp(`[${CJK}、。，！？「」『』（）]`, "u");
const BOUNDARY = "\u0000";
const JA_FINAL =
  /(ませんでした|でしょうか|ませんか|ですか|ますか|でしたか|ましたか|ですよね|ますよね|ですね|ますね|ですよ|ますよ|でした|ました|ません|でしょう|ましょう|ください|下さい|んです|です|ます)(?![がけしからのでとねよなもかって、。！？!?」』）)ーわ])/g;
const JA_FINAL_BEFORE_SPACE =
  /(?:ます|です|ました|でした|ません|でしょう|ましょう|ください|か|ね|よ|だ|った|んです|のです|けど|ですけど)$/;
const ZH_FINAL_BEFORE_SPACE = /[吗呢吧]$/;
const JA_PROMPT = /(?:教えて|聞かせて|話して|お聞かせ)(?:ください|下さい)/;

const CJK_QUESTION = new RegExp(`(?<=[${CJK}])\\s*\\?`, "gu");
const CJK_EXCLAMATION = new RegExp(`(?<=[${CJK}])\\s*!`, "gu");
const CJK_COMMA = new RegExp(`(?<=[${CJK}])\\s*,\\s*`, "gu");

/** Splits Japanese/Chinese text into sentences and gives each an ending (。/？) when it lacks one. */
export function segmentSpaceless(text: string, lang: "ja" | "zh"): Sentence[] {
  let s = text.replace(/[ \t\u3000]+/g, " ").replace(/\s*\n\s*/g, "\n");
  // ASCII punctuation between CJK characters → full-width.
  s = s
    .replace(CJK_QUESTION, "？")
    .replace(CJK_EXCLAMATION, "！")
    .replace(CJK_COMMA, lang === "ja" ? "、" : "，");
  s = s.replace(/([。！？!?]+[」』）)]*)/g, `$1${BOUNDARY}`);
  if (lang === "ja") s = s.replace(JA_FINAL, `$1${BOUNDARY}`);
  // Spaces and line breaks: a pause. A sentence end after a final form, else a comma between CJK characters.
  s = s.replace(/[ \n]+/g, (m, offset: number, all: string) => {
    const left = all.slice(Math.max(0, offset - 8), offset);
    const right = all[offset + m.length] ?? "";
    const l = left.at(-1) ?? "";
    if (!l || l === BOUNDARY || !right) return BOUNDARY;
    if (!CJK_CHAR.test(l) || !CJK_CHAR.test(right)) return m.includes("\n") ? BOUNDARY : " ";
    if (/[、，。！？]/.test(l)) return "";
    if (lang === "ja" ? JA_FINAL_BEFORE_SPACE.test(left) : ZH_FINAL_BEFORE_SPACE.test(left)) return BOUNDARY;
    return lang === "ja" ? "、" : "，";
  });
  const out: Sentence[] = [];
  for (let part of s.split(BOUNDARY)) {
    part = part.trim().replace(/^[、，,\s]+/, "");
    if (!part || !/[\p{L}\p{N}]/u.test(part)) continue;
    part = part.replace(/[、，,\s]+$/, "");
    let question: boolean;
    let guessedQuestion = false;
    if (/[。！？!?][」』）)]*$/.test(part)) {
      part = part.replace(/\?([」』）)]*)$/, "？$1").replace(/!([」』）)]*)$/, "！$1");
      question = /？[」』）)]*$/.test(part);
    } else {
      question = lang === "ja" ? /か$/.test(part) : /[吗呢]$/.test(part);
      part += question ? "？" : "。";
      guessedQuestion = question;
    }
    const prompt = !question && lang === "ja" && JA_PROMPT.test(part);
    out.push({ text: part, question, prompt, cue: null, addressed: null, words: part.length, guessedQuestion });
  }
  return out;
}
