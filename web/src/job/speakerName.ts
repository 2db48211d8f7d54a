/**
 * Speaker names as shown: a name the server gave by default in English ("Interviewer", "Interviewee",
 * "Speaker 3") is shown in the interface language; a name the user typed is shown as typed.
 */
import type { JobSpeaker } from "@kikitori/shared";
import type { TFunction } from "i18next";

export interface SpeakerTexts {
  /** The interface language's texts. */
  t: TFunction;
  /** The same keys in English (the language of the server's defaults when the upload was in English). */
  en: TFunction;
}

/** The name to show for a speaker. Pure. */
export function shownSpeakerName(speaker: Pick<JobSpeaker, "name" | "role">, { t, en }: SpeakerTexts): string {
  const name = speaker.name.trim();
  if (name === en("transcription.speakerInterviewer")) return t("transcription.speakerInterviewer");
  if (name === en("transcription.speakerInterviewee")) return t("transcription.speakerInterviewee");
  const n = /^Speaker (\d+)$/.exec(name)?.[1];
  if (n !== undefined) return t("transcription.speakerN", { n: Number(n) });
  return speaker.name;
}
