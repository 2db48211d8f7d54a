import type { SpeechStatus } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { languageName } from "./audioLanguage.ts";
import { ENGINE_LABELS, routedAroundLanguage } from "./speechNotice.ts";

/**
 * Says when the speech engine in use is not the one asked for (GET /api/speech `notice`), e.g. the rough
 * offline English engine because no Whisper model could be had, or the best model for the language
 * about to be transcribed (`language`: the audio language chosen; else the interface language) failed
 * to load, so a less accurate engine takes it: in plain words, what it means for the user's recording.
 * The operator's detail (the setting, the reason) stays in the logs and in GET /api/speech, never on
 * screen. A status, not an error: uploads still work.
 */
export function SpeechNotice({ status, language }: { status: SpeechStatus; language?: string | null }) {
  const { t } = useTranslation();
  const lang = useLang();
  const { notice } = status;
  if (!notice) return null;
  let text: string;
  let about: string | undefined;
  if (notice.code === "SPEECH_ROUTED_AROUND") {
    const around = routedAroundLanguage(status, language, lang);
    if (!around) return null;
    about = around.language;
    text = t("transcription.speechNotice.SPEECH_ROUTED_AROUND", {
      language: languageName(around.language, lang),
      engine: ENGINE_LABELS[around.engine],
    });
  } else {
    text = t(`transcription.speechNotice.${notice.code}`);
  }
  return (
    <p
      className="alert alert-warning tx-speech-notice"
      role="status"
      data-testid="tx-speech-notice"
      data-code={notice.code}
      data-language={about}
    >
      {text}
    </p>
  );
}
