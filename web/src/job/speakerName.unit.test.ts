import { describe, expect, it } from "@jest/globals";
import type { TFunction } from "i18next";
import { shownSpeakerName } from "./speakerName.ts";

const table = (texts: Record<string, string>) =>
  ((key: string, opts?: { n?: number }) => (texts[key] ?? key).replace("{{n}}", String(opts?.n ?? ""))) as TFunction;
const en = table({
  "transcription.speakerInterviewer": "Interviewer",
  "transcription.speakerInterviewee": "Interviewee",
  "transcription.speakerN": "Speaker {{n}}",
});
const ja = table({
  "transcription.speakerInterviewer": "インタビュアー",
  "transcription.speakerInterviewee": "インタビュイー",
  "transcription.speakerN": "話者{{n}}",
});

describe("shownSpeakerName", () => {
  it("shows the English default names in the interface language", () => {
    expect(shownSpeakerName({ name: "Interviewer", role: "interviewer" }, { t: ja, en })).toBe("インタビュアー");
    expect(shownSpeakerName({ name: "Interviewee", role: "interviewee" }, { t: ja, en })).toBe("インタビュイー");
    expect(shownSpeakerName({ name: "Speaker 3", role: "other" }, { t: ja, en })).toBe("話者3");
  });

  it("keeps a name the user gave", () => {
    expect(shownSpeakerName({ name: "Anna", role: "interviewer" }, { t: ja, en })).toBe("Anna");
    expect(shownSpeakerName({ name: "Speaker Tanaka", role: "other" }, { t: ja, en })).toBe("Speaker Tanaka");
  });
});
