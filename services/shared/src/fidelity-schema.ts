// The fidelity report's contract (the API's and the worker's): its shape, validated at both ends, and
// the options a report is made with. How it is made: fidelity.ts.
import { z } from "zod";

export const fidelityOpSchema = z.object({
  /** same: in both; removed: only in the raw transcript; added: only in the corrected interview. */
  op: z.enum(["same", "removed", "added"]),
  text: z.string(),
});
export type FidelityOp = z.infer<typeof fidelityOpSchema>;

/** Where in the recording a flag's passage is (seconds; null when the transcript is not timed). */
const spanFields = {
  startSeconds: z.number().nullable(),
  endSeconds: z.number().nullable(),
};
/** Character offsets of a sentence in the interview text. */
const sentenceFields = {
  sentence: z.string(),
  start: z.number().int(),
  end: z.number().int(),
};
/** Character ranges, inside the sentence, of the words its passage does not have as they are. */
const marksField = { marks: z.array(z.tuple([z.number().int(), z.number().int()])) };

export const fidelityReportSchema = z.object({
  /** Share (0–1) of the interview's sentences supported by the stretch of transcript they align to; null without an interview. */
  figure: z.number().nullable(),
  /** Interview sentences (with words) and how many of them are supported. */
  sentenceCount: z.number().int(),
  supportedCount: z.number().int(),
  /** Content words of the interview, and how many of them were heard in their sentence's stretch. */
  contentWords: z.number().int(),
  tracedWords: z.number().int(),
  /** Per interview sentence: its stretch of the recording, the speaker heard there, and its support (0–1). */
  sentences: z.array(
    z.object({
      start: z.number().int(),
      end: z.number().int(),
      ...spanFields,
      /** Name of the speaker heard in the stretch (segments with speakers), else null. */
      speaker: z.string().nullable(),
      support: z.number(),
    }),
  ),
  /** The word-level diff, raw → corrected (null when the texts are too far apart to diff in time). */
  diff: z.array(fidelityOpSchema).nullable(),
  /** Sentences no stretch of the transcript supports; the span is where they stand (between their neighbours). */
  invented: z.array(
    z.object({ ...sentenceFields, ...spanFields, words: z.array(z.string()), ...marksField, support: z.number() }),
  ),
  /** Sentences under one speaker's label whose stretch another speaker said. */
  misattributed: z.array(z.object({ ...sentenceFields, ...spanFields, label: z.string(), heard: z.string() })),
  /** Supported sentences with words their stretch does not have (beyond fillers, stutters, punctuation, casing). */
  reworded: z.array(
    z.object({
      ...sentenceFields,
      ...spanFields,
      words: z.array(z.string()),
      ...marksField,
      heardText: z.string(),
      support: z.number(),
    }),
  ),
  /** Transcript passages whose content words mostly reached no sentence. */
  dropped: z.array(z.object({ text: z.string(), ...spanFields, words: z.array(z.string()) })),
  /**
   * Terms the interview spells as the job's glossary does where the transcript had another spelling
   * (`from`, `count` places): the glossary's spelling, not a changed or invented word.
   */
  glossaryFixes: z.array(z.object({ from: z.string(), to: z.string(), count: z.number().int() })),
});
export type FidelityReport = z.infer<typeof fidelityReportSchema>;

export interface FidelityOptions {
  /** Language of the texts (word segmentation and function words, from the language toolkit). */
  language: string;
  /** Speaker names that label turns in the corrected text ("Anna: …"); they are not content. */
  speakerNames?: string[];
  /** The job's speakers: ids as in the segments, names as in the labels (for `misattributed`). */
  speakers?: Array<{ id: number; name: string }>;
  /** Timed raw passages (with speakers where diarized); without them the raw text's sentences are the passages. */
  segments?: Array<{ start: number; end?: number; text: string; speaker?: number }>;
  /** Most milliseconds the word diff may take (default 500 ms); past it the diff is left out. */
  diffTimeoutMs?: number;
  /** The job's glossary: the transcript is written with its spellings before it is compared. */
  glossary?: string[];
}
