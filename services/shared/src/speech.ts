import { z } from "zod";
import { isSpacelessLanguage } from "./language/spacing.ts";

/**
 * The audio languages Whisper knows (whisper.cpp's table, same order: the index is Whisper's language
 * id). The web app names them with `Intl.DisplayNames` in the interface language; the English names
 * here are for logs and the API description.
 */
export const WHISPER_LANGUAGES = [
  ["en", "English"],
  ["zh", "Chinese"],
  ["de", "German"],
  ["es", "Spanish"],
  ["ru", "Russian"],
  ["ko", "Korean"],
  ["fr", "French"],
  ["ja", "Japanese"],
  ["pt", "Portuguese"],
  ["tr", "Turkish"],
  ["pl", "Polish"],
  ["ca", "Catalan"],
  ["nl", "Dutch"],
  ["ar", "Arabic"],
  ["sv", "Swedish"],
  ["it", "Italian"],
  ["id", "Indonesian"],
  ["hi", "Hindi"],
  ["fi", "Finnish"],
  ["vi", "Vietnamese"],
  ["he", "Hebrew"],
  ["uk", "Ukrainian"],
  ["el", "Greek"],
  ["ms", "Malay"],
  ["cs", "Czech"],
  ["ro", "Romanian"],
  ["da", "Danish"],
  ["hu", "Hungarian"],
  ["ta", "Tamil"],
  ["no", "Norwegian"],
  ["th", "Thai"],
  ["ur", "Urdu"],
  ["hr", "Croatian"],
  ["bg", "Bulgarian"],
  ["lt", "Lithuanian"],
  ["la", "Latin"],
  ["mi", "Maori"],
  ["ml", "Malayalam"],
  ["cy", "Welsh"],
  ["sk", "Slovak"],
  ["te", "Telugu"],
  ["fa", "Persian"],
  ["lv", "Latvian"],
  ["bn", "Bengali"],
  ["sr", "Serbian"],
  ["az", "Azerbaijani"],
  ["sl", "Slovenian"],
  ["kn", "Kannada"],
  ["et", "Estonian"],
  ["mk", "Macedonian"],
  ["br", "Breton"],
  ["eu", "Basque"],
  ["is", "Icelandic"],
  ["hy", "Armenian"],
  ["ne", "Nepali"],
  ["mn", "Mongolian"],
  ["bs", "Bosnian"],
  ["kk", "Kazakh"],
  ["sq", "Albanian"],
  ["sw", "Swahili"],
  ["gl", "Galician"],
  ["mr", "Marathi"],
  ["pa", "Punjabi"],
  ["si", "Sinhala"],
  ["km", "Khmer"],
  ["sn", "Shona"],
  ["yo", "Yoruba"],
  ["so", "Somali"],
  ["af", "Afrikaans"],
  ["oc", "Occitan"],
  ["ka", "Georgian"],
  ["be", "Belarusian"],
  ["tg", "Tajik"],
  ["sd", "Sindhi"],
  ["gu", "Gujarati"],
  ["am", "Amharic"],
  ["yi", "Yiddish"],
  ["lo", "Lao"],
  ["uz", "Uzbek"],
  ["fo", "Faroese"],
  ["ht", "Haitian Creole"],
  ["ps", "Pashto"],
  ["tk", "Turkmen"],
  ["nn", "Nynorsk"],
  ["mt", "Maltese"],
  ["sa", "Sanskrit"],
  ["lb", "Luxembourgish"],
  ["my", "Myanmar"],
  ["bo", "Tibetan"],
  ["tl", "Tagalog"],
  ["mg", "Malagasy"],
  ["as", "Assamese"],
  ["tt", "Tatar"],
  ["haw", "Hawaiian"],
  ["ln", "Lingala"],
  ["ha", "Hausa"],
  ["ba", "Bashkir"],
  ["jw", "Javanese"],
  ["su", "Sundanese"],
  ["yue", "Cantonese"],
] as const;

export type AudioLanguageCode = (typeof WHISPER_LANGUAGES)[number][0];
export const AUDIO_LANGUAGE_CODES: readonly AudioLanguageCode[] = WHISPER_LANGUAGES.map(([code]) => code);
/** "Detect automatically": Whisper detects the language once, on the longest stretch of speech. */
export const AUTO_LANGUAGE = "auto";
export type AudioLanguage = AudioLanguageCode | typeof AUTO_LANGUAGE;

/** BCP-47 tags Whisper spells differently (`jw` is Javanese, ISO `jv`; Hebrew was once `iw`). */
const ALIASES: Record<string, AudioLanguageCode> = { jv: "jw", iw: "he", nb: "no", fil: "tl" };

/**
 * The audio language of a tag: "auto", a Whisper code ("ja"), or a BCP-47 tag with a region or
 * script ("pt-BR" → pt, "zh-Hant" → zh, "yue-HK" → yue). Null when Whisper does not know it.
 */
export function parseAudioLanguage(value: string | null | undefined): AudioLanguage | null {
  const v = (value ?? "").trim().toLowerCase();
  if (!v) return null;
  if (v === AUTO_LANGUAGE) return AUTO_LANGUAGE;
  const base = v.split(/[-_]/)[0];
  if ((AUDIO_LANGUAGE_CODES as readonly string[]).includes(base)) return base as AudioLanguageCode;
  return ALIASES[base] ?? null;
}

export const audioLanguageSchema = z
  .string()
  .max(35)
  .transform((v, ctx) => {
    const lang = parseAudioLanguage(v);
    if (!lang) {
      ctx.addIssue({
        code: "custom",
        message: `unknown audio language "${v.slice(0, 35)}": use "auto" or a Whisper language code (en, ja, de, …)`,
      });
      return z.NEVER;
    }
    return lang;
  });

/** One timed piece of the transcript, in seconds of the whole recording. */
export const transcriptWordSchema = z.object({
  start: z.number(),
  end: z.number(),
  text: z.string(),
  /** The segment's time spread over its words by length: the engine gave no word times. */
  approximate: z.boolean().optional(),
});
export type TranscriptWord = z.infer<typeof transcriptWordSchema>;
export const transcriptSegmentSchema = z.object({
  start: z.number().min(0),
  end: z.number().min(0),
  text: z.string(),
  /** Word timings, where the engine gives them. */
  words: z.array(transcriptWordSchema).optional(),
  /** Who speaks (0, 1, … in order of first appearance), where the recording was diarized. */
  speaker: z.number().int().min(0).optional(),
});
export type TranscriptSegment = z.infer<typeof transcriptSegmentSchema>;

/**
 * Speech engines: `parakeet` (NVIDIA Parakeet TDT, 25 European languages) and `sensevoice`
 * (SenseVoice-small: zh, en, ja, ko, yue) through sherpa-onnx; `auto` routes each audio language to
 * the best of them whose model is present.
 */
export const SPEECH_ENGINES = ["whisper", "pocketsphinx", "openai", "parakeet", "sensevoice", "auto"] as const;
export type SpeechEngineName = (typeof SPEECH_ENGINES)[number];

/**
 * Which engine and model an audio language goes to, whether that model is on disk, and, where a
 * better engine exists for it but its model is missing, the command that fetches it.
 */
export const speechRouteSchema = z.object({
  language: z.string(),
  /** Null: no engine here takes the language (it is refused at upload). */
  engine: z.enum(SPEECH_ENGINES).nullable(),
  model: z.string().nullable(),
  present: z.boolean(),
  /** `npm run models -- pull NAME` for the better model, when it is not present. */
  pull: z.string().nullable(),
  /**
   * Set when a better engine's model for this language is present but failed to load at start (the
   * language is routed around it, to `engine`): that engine, its model, and why, in English.
   */
  routedAround: z.object({ engine: z.enum(SPEECH_ENGINES), model: z.string(), reason: z.string() }).optional(),
});
export type SpeechRoute = z.infer<typeof speechRouteSchema>;

/**
 * Why the speech engines in use are not the ones asked for, most important first: only the rough
 * English engine is left (SPEECH_FALLBACK_ROUGH), or a model that is present failed to load at start
 * and its languages go to the next engine (SPEECH_ROUTED_AROUND; the routes say which).
 */
export const SPEECH_NOTICE_CODES = ["SPEECH_FALLBACK_ROUGH", "SPEECH_ROUTED_AROUND"] as const;
export type SpeechNoticeCode = (typeof SPEECH_NOTICE_CODES)[number];

/**
 * What the transcription workers can do right now (published by each worker at start and kept fresh
 * in Redis; read by the gateway for GET /api/speech and the upload check). `languages` is "all" or
 * the list of audio languages the engine takes. `notice` is set when the engine in use is not the one
 * asked for (e.g. no Whisper model could be had, so English falls back to pocketsphinx).
 */
export const speechStatusSchema = z.object({
  available: z.boolean(),
  engine: z.enum(SPEECH_ENGINES).nullable(),
  /** Model in use ("base", "whisper-1", "en-us"), where the engine has one. */
  model: z.string().nullable(),
  languages: z.union([z.literal("all"), z.array(z.string())]),
  notice: z
    .object({
      code: z.enum(SPEECH_NOTICE_CODES),
      /** The setting that would fix it (e.g. WHISPER_MODEL / MODELS_DIR). */
      setting: z.string(),
      /** Why the preferred engine is not in use, in English (for logs and operators). */
      reason: z.string(),
    })
    .nullable(),
  /** Per audio language (every Whisper language), the engine and model it goes to. */
  routes: z.array(speechRouteSchema).optional(),
});
export type SpeechStatus = z.infer<typeof speechStatusSchema>;

export const SPEECH_STATUS_UNKNOWN: SpeechStatus = {
  available: false,
  engine: null,
  model: null,
  languages: "all",
  notice: null,
};

/** True when `status` says the engine cannot take recordings in `language`. */
export function speechRefuses(status: SpeechStatus, language: AudioLanguage): boolean {
  if (!status.available || status.languages === "all" || language === AUTO_LANGUAGE) return false;
  return !status.languages.includes(language);
}

/** The language a job's texts are in: the detected one, else the one asked for, else the uploader's interface language. */
export function jobTextLanguage(job: {
  detectedLanguage: string | null;
  audioLanguage: string;
  language: string;
}): string {
  return job.detectedLanguage ?? (job.audioLanguage === AUTO_LANGUAGE ? job.language : job.audioLanguage);
}

/** A transcript's text from its segments, in order (no space between them in ja, zh, th, …). */
export function segmentsText(segments: ReadonlyArray<{ text: string }>, language: string | null | undefined): string {
  return segments
    .map((s) => s.text.trim())
    .filter(Boolean)
    .join(isSpacelessLanguage(language) ? "" : " ");
}

/** Most speakers a recording can be said to have at upload ("Number of speakers": auto, 1–6). */
export const MAX_SPEAKERS = 6;

/**
 * Upload field `speakers`: "auto" (or empty) lets the diarization estimate the count; "1"…"6" fixes
 * it. Parsed to null (auto) or the number.
 */
export const speakerCountSchema = z
  .union([z.literal(""), z.literal("auto"), z.coerce.number().int().min(1).max(MAX_SPEAKERS)])
  .optional()
  .transform((v) => (typeof v === "number" ? v : null));

/** A speaker of a job: its id in the segments, the name shown, and its part in the interview. */
export const jobSpeakerSchema = z.object({
  id: z.number().int().min(0),
  name: z.string().max(100),
  role: z.enum(["interviewer", "interviewee", "other"]),
});
export type JobSpeaker = z.infer<typeof jobSpeakerSchema>;

/** Diarization engines (shown on the job). */
export const DIARIZATION_ENGINES = ["sherpa", "classic"] as const;
