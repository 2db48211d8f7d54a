/** The port of the correction step: a raw transcript in, a clean interview text out. */

import type { StepStore } from "@kikitori/shared/server";

export type CorrectionTone = "formal" | "casual" | "pop" | "serious";
export type Role = "interviewer" | "interviewee";

export interface CorrectionInput {
  /** Raw ASR text: one long unpunctuated lower-case run (pocketsphinx) or punctuated text (Whisper). */
  transcript: string;
  /** UI language ("en", "ja", ...); the transcript's own language may differ. */
  language: string;
  /** May be "": the label then falls back to `labels.interviewer`. */
  interviewer: string;
  /** May be "": the label then falls back to `labels.interviewee`. */
  interviewee: string;
  tone: CorrectionTone | null;
  /** At most 300 characters, may be "": an example of the desired format ("Q: ...\nA: ...", "Name: ...", "— ..."). */
  interviewExample: string;
  /** meeting, general, phonecall, voicemail, finance, conversationalai, video, medical */
  fileType: string;
  /** Localized default labels used when a name is empty. */
  labels?: { interviewer: string; interviewee: string };
  /**
   * Turns heard from the voices (speaker diarization), in order: when given, they decide who says
   * what, and no engine may merge two speakers' turns or move words between them.
   */
  turns?: CorrectionTurn[];
  /** The job's glossary: names and terms to write exactly so (the language model is told them). */
  glossary?: string[];
}

/** One heard turn: its speaker (id, part, name), time span and raw text. */
export interface CorrectionTurn {
  speaker: number;
  /** Interviewer or interviewee; null for a further speaker (drawn with its name). */
  role: Role | null;
  name: string;
  start: number;
  end: number;
  text: string;
}

export interface CorrectOptions {
  /**
   * Where the corrected sections are kept, by index (the job's correction_sections rows in the
   * worker): a section found there is kept as it is and not redone; a new one is stored there as
   * soon as it is corrected. None: the sections are kept for this call only.
   */
  steps?: StepStore<string, number>;
  /**
   * Called after each newly corrected section is stored (not for resumed ones) with its index and
   * stored text, the number of sections done so far (resumed ones included) and the total.
   */
  onSection?: (index: number, text: string, done: number, total: number) => Promise<void> | void;
  /**
   * Aborted when the worker starts shutting down: the section in hand (its language-model request
   * included) finishes and goes to onSection, no further section starts, and correct() rejects with
   * StoppedAtBoundary (correction/steps.ts).
   */
  stop?: AbortSignal;
  /** Cancels at once, the section in hand included (its request is aborted); correct() rejects. */
  signal?: AbortSignal;
}

export interface CorrectionResult {
  /** The whole corrected text (the sections joined). */
  text: string;
  /** The corrected text of each section, by index. */
  sections: string[];
}

export interface CorrectionEngine {
  readonly name: string;
  /**
   * Corrects section by section; calls onSection after each; sections already in `steps` (by
   * index) must not be redone; `stop` ends the run at the next section boundary.
   * Returns the full text and the per-section texts.
   */
  correct(input: CorrectionInput, opts?: CorrectOptions): Promise<CorrectionResult>;
}

/** Section size used when none is configured. */
export const DEFAULT_SECTION_CHARS = 6000;
/** Read-only context (characters of the previous section) given to the language model. */
export const DEFAULT_OVERLAP_CHARS = 300;
