import type { JobSpeaker } from "@kikitori/shared";
import { useCallback } from "react";
import { useTranslation } from "react-i18next";
import { shownSpeakerName } from "./speakerName.ts";

/** `shownSpeakerName` bound to the interface language. */
export function useSpeakerName(): (speaker: Pick<JobSpeaker, "name" | "role">) => string {
  const { t, i18n } = useTranslation();
  return useCallback((speaker) => shownSpeakerName(speaker, { t, en: i18n.getFixedT("en") }), [t, i18n]);
}
