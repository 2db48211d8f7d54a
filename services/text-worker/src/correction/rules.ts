/** Word lists of the offline engine, by language. Only clear cases: a doubtful word is left alone. */

import { guessLanguage } from "@kikitori/shared/language";

/**
 * The family of rules that applies to a transcript (the UI language may differ from it): en/de/fr/es
 * have full rule sets; ja/zh have their own; "other" gets whitespace and punctuation only.
 */
export type TextLang = "en" | "de" | "fr" | "es" | "ja" | "zh" | "other";

const SPACED_RULES = new Set<TextLang>(["en", "de", "fr", "es"]);
const isRuleLang = (lang: string): lang is TextLang =>
  SPACED_RULES.has(lang as TextLang) || lang === "ja" || lang === "zh";

/**
 * The rule family of a transcript, from its detected language. A guess the text does not bear out
 * gets no language rules ("other"), except a short Latin-script text, which follows the UI language.
 */
export function detectTextLang(text: string, uiLanguage: string): TextLang {
  const ui = (uiLanguage || "").toLowerCase().split(/[-_]/)[0];
  const guess = guessLanguage(text, ui || undefined);
  if (guess.sure) return isRuleLang(guess.language) ? guess.language : "other";
  if (guess.script === "latin" && guess.words < 20 && SPACED_RULES.has(ui as TextLang)) return ui as TextLang;
  return "other";
}

const set = (words: string) => new Set(words.split(/\s+/).filter(Boolean));

export interface LangRules {
  /** Hesitation tokens removed wherever they stand. */
  fillers: Set<string>;
  /** Removed only when set off by commas (", like,") or sentence-initial with a comma ("Like, ..."). */
  commaFillers: Set<string>;
  /** Words that may legitimately be doubled ("that that", "had had"). */
  repeatOk: Set<string>;
  questionWords: Set<string>;
  /** Verbs that open a yes/no question when followed by a subject ("do you", "haben Sie"). */
  auxVerbs: Set<string>;
  subjects: Set<string>;
  /** Words that may open a sentence and may be passed over to find its real start ("and", "so"). */
  connectors: Set<string>;
}

/** Hesitation sounds however long they are drawn out ("ummm", "hmm"): fillers in every language. */
export const SOUND_FILLER = /^(?:u+m+|u+h+|e+r+m+|h+m+|m{2,})$/;

/** Hesitations that are not words in any of the languages with rules: removed whatever the language. */
const GENERIC_FILLERS = "hmm hmmm hm mm mmm ehm uhm umm erm euh heu äh ähm öhm";

export const RULES: Record<"en" | "de" | "fr" | "es" | "other", LangRules> = {
  en: {
    fillers: set(`${GENERIC_FILLERS} um uh uhh er erm ah ahh`),
    commaFillers: set("like"),
    repeatOk: set(
      "that had no very really bye ha hah ho is long far much many zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million",
    ),
    questionWords: set("what how why when where who whom whose which what's how's where's who's why's when's"),
    auxVerbs: set(
      "do does did can could would will should is are was were have has am don't didn't doesn't can't couldn't wouldn't won't isn't aren't wasn't weren't haven't hasn't shouldn't may",
    ),
    subjects: set("you we they he she it there that this i your"),
    connectors: set("and so but okay ok well now oh alright then also"),
  },
  de: {
    fillers: set(`${GENERIC_FILLERS} äh ähm ähh äähm öh öhm ehm`),
    commaFillers: set(""),
    repeatOk: set("die der das dem den sie ja nein sehr"),
    questionWords: set("was wie warum wann wo wer welche welcher welches wieso weshalb woher wohin wofür wem wen"),
    auxVerbs: set(
      "haben hast hat hatten hattest sind bist ist war waren warst können kannst kann könnten könntest würden würdest wollen willst möchten möchtest gibt gab machen machst sehen siehst denken denkst glauben glaubst",
    ),
    subjects: set("sie du ihr es das man wir er"),
    connectors: set("und also aber ja okay gut dann na"),
  },
  fr: {
    fillers: set(`${GENERIC_FILLERS} euh heu euhh hum`),
    commaFillers: set("ben bah"),
    repeatOk: set("nous vous non très si"),
    questionWords: set("pourquoi comment quand où qui quel quelle quels quelles qu'est-ce combien"),
    auxVerbs: set("est-ce avez-vous êtes-vous pouvez-vous pensez-vous as-tu es-tu peux-tu penses-tu"),
    subjects: set(""),
    connectors: set("et alors mais donc bon oui"),
  },
  es: {
    fillers: set(`${GENERIC_FILLERS} eh em emm`),
    commaFillers: set("este"),
    repeatOk: set("no muy sí"),
    questionWords: set("qué cómo cuándo dónde quién quiénes cuál cuáles cuánto cuánta cuántos por"),
    auxVerbs: set(""),
    subjects: set(""),
    connectors: set("y entonces pero bueno sí pues"),
  },
  other: {
    fillers: set(GENERIC_FILLERS),
    commaFillers: set(""),
    repeatOk: set(""),
    questionWords: set(""),
    auxVerbs: set(""),
    subjects: set(""),
    connectors: set(""),
  },
};

export function rulesFor(lang: TextLang): LangRules {
  return lang === "en" || lang === "de" || lang === "fr" || lang === "es" ? RULES[lang] : RULES.other;
}

/* ---- English specifics ---- */

/** Words after which a question word opens a subordinate clause, not a question ("I know what ..."). */
export const EN_WH_PREV_BLOCK = set(
  "know knew knows wonder wondered wondering see saw tell told ask asked asking about remember understand understood is was that's thats exactly explain show showed decide decided matter sure idea learn learned learnt figure figured care that of on from for to in at by with even just or depends depending regardless realize realized guess imagine discover discovered find found out question place time day moment year point way reason because think thought mean see matter no",
);
/** Words right after a question word that make it a question ("what did", "how long"). */
export const EN_WH_NEXT = set(
  "do does did is are was were can could would will should have has had made makes brought got inspired led drew happened happens kind sort type long much many often far old about else exactly advice motivated convinced changed surprised",
);
/** Words before an inverted auxiliary that show it is not a question ("we did it", "to do that"). */
export const EN_AUX_PREV_BLOCK = set(
  "i you we they he she it that this which who what how why when where if whether than as to not also just really always never still only probably definitely people things there because until unless or what's that's it's i'm we're they're you're ever even could would should will can might must may",
);
/** Words after "is it", "was that" that show the clause is a statement ("the problem is it doesn't"). */
export const EN_AFTER_INV_BLOCK = set(
  "doesn't don't didn't does do did is was are were will would can could has have had isn't wasn't won't can't i we you they he she that it 's",
);
/** Answers that open a sentence: a new sentence starts before them. */
export const EN_YES = set("yes yeah yep yup");
export const EN_NO_NEXT = set(
  "i we it that not no they he she you actually never well but i'm it's that's because so thank thanks",
);
export const EN_YES_NO_PREV_BLOCK = set(
  "say said says saying to a the or have has had is was there with of there's got means no yes oh",
);
export const EN_WELL_PREV_BLOCK = set(
  "as very pretty so quite really do did does went go goes going done doing worked works work is was it that not fairly extremely reasonably too sleep slept eat ate paid pay feel felt played treated oh just",
);
export const EN_WELL_NEXT = set(
  "i you we they he she it the actually it's that's there first yes no so okay honestly i'm we're you know that um",
);
export const EN_OKAY_PREV_BLOCK = set(
  "is was be it's that's feel felt seems seemed looks looked are were doing did am i'm it pretty all be be not just was",
);
export const EN_SO_NEXT_BLOCK = set(
  "much many far that long good bad hard well to called yeah far forth on sorry happy glad excited proud",
);
export const EN_SO_PREV_BLOCK = set(
  "or not is was be it's feel felt think thought hope say said do did just more even and also very really i'm am are were",
);
export const EN_THANK_PREV_BLOCK = set("to say said just i we really also and");
/** Short remarks by the interviewer between an answer and the next question. */
export const EN_ACKS = new Set([
  "okay",
  "ok",
  "great",
  "i see",
  "interesting",
  "that's interesting",
  "that's so interesting",
  "that's great",
  "wow",
  "right",
  "sure",
  "got it",
  "thank you",
  "thanks",
  "nice",
  "that's nice",
  "that's amazing",
  "amazing",
  "cool",
  "fantastic",
  "wonderful",
  "perfect",
  "alright",
  "all right",
  "very interesting",
  "that makes sense",
  "makes sense",
  "mhm",
  "that's fascinating",
  "fascinating",
  "that's fair",
  "fair enough",
  "understood",
  "absolutely",
  "that's great advice",
  "great advice",
  "good point",
  "that's a good point",
  "that's a great point",
  "that's wonderful",
  "that's fantastic",
  "that's incredible",
  "incredible",
  "lovely",
  "brilliant",
  "excellent",
]);
/** Sentences the interviewer says that are not questions. */
export const EN_PROMPT_START =
  /^(?:(?:and|so|okay|ok|well|now|alright|then|please)[, ]+)*(?:tell (?:me|us)\b|talk (?:me|us) through\b|walk (?:me|us) through\b|describe\b|let's (?:talk|start|move|go back|turn|get started)\b|let us (?:talk|start|move|turn)\b|give (?:me|us) an example\b|take (?:me|us) (?:back|through)\b|please (?:tell|describe|explain)\b)/i;
/** What the interviewer says to open: the next plain sentences are still the interviewer's. */
export const EN_INTERVIEWER_CUES =
  /\b(?:welcome to\b|welcome back\b|my guest today|joining me today|today i'm (?:here |talking |speaking )?with|i'm here with|today we have|let's get started)/i;
/** What the interviewer says to close or thank: the next plain sentence is the interviewee's reply. */
export const EN_INTERVIEWER_CLOSING =
  /\b(?:thank you (?:so much |very much )?for (?:your time|joining|coming|talking|being here|being with us|sitting down|speaking)|thanks (?:so much |very much )?for (?:your time|joining|coming|talking|being here|being with us|speaking))/i;
export const EN_INTERVIEWEE_CUES =
  /\b(?:thank you (?:so much |very much )?for having me|thanks (?:so much )?for having me|(?:glad|happy|great|good) to be here|(?:a |my )?pleasure to be here|it's my pleasure|thanks for inviting me|thank you for inviting me)\b/i;
export const EN_MONTHS_DAYS = new Map(
  "monday tuesday wednesday thursday friday saturday sunday january february april june july august september october november december english japanese chinese german french spanish american european"
    .split(" ")
    .map((w) => [w, w[0].toUpperCase() + w.slice(1)]),
);
/** Name words that are also common English words: not capitalised mid-sentence. */
export const EN_AMBIGUOUS_NAMES = set(
  "will may mark bill rose grace hope joy faith june april august art pat sue ray jack frank sky summer dawn amber ruby crystal page rich lily iris jean gene sandy drew chase chance miles wade hunter cliff rob hall young king bell brown green white black long short new gay grant",
);
/** Sentence-initial words followed by a comma when they introduce a longer sentence. */
export const EN_COMMA_AFTER = set(
  "yes yeah yep yup no nope okay ok well oh alright actually honestly basically sure hello hi hey wow also",
);
export const EN_COMMA_NEXT_BLOCK: Record<string, Set<string>> = {
  well: set("known done enough being worth over before after then i'm"),
  no: set("one longer more way idea problem doubt matter other less further thanks need"),
  oh: set("my no god well yes yeah wow"),
  sure: set("enough thing"),
  actually: set(""),
  hi: set("everyone there guys all folks again team"),
  hello: set("everyone there guys all folks again team"),
  hey: set("everyone there guys all folks again team"),
  also: set(""),
};

/* ---- German / French / Spanish question starts (light) ---- */
export const DE_WH_PREV_BLOCK = set("so genau nicht weiß weißt wissen frage fragen egal und dass ob");
export const FR_QUESTION_START =
  /^(?:(?:et|alors|donc|bon|mais)\s+)*(?:est-ce que|qu'est-ce|pourquoi|comment|quand|où|qui|quel|quelle|quels|quelles|combien|avez-vous|êtes-vous|pouvez-vous|pensez-vous|as-tu|es-tu|peux-tu)\b/i;
export const ES_QUESTION_START =
  /^(?:(?:y|entonces|pero|bueno|pues)\s+)*(?:qué|cómo|cuándo|dónde|quién|quiénes|cuál|cuáles|cuánto|cuánta|cuántos|cuántas|por qué|puede usted|podría|tiene usted|ha )/i;
export const DE_QUESTION_START =
  /^(?:(?:und|also|aber|ja|okay|gut|dann|na)\s+)*(?:(?:was|wie|warum|wann|wo|wer|welche|welcher|welches|wieso|weshalb|woher|wohin|wofür|wem|wen)\b|(?:haben|hast|hat|hatten|sind|bist|ist|war|waren|warst|können|kannst|kann|könnten|könntest|würden|würdest|wollen|willst|möchten|möchtest|gibt|gab|machen|machst|sehen|siehst|denken|denkst|glauben|glaubst)\s+(?:sie|du|ihr|es|das|man|wir|er)\b)/i;
