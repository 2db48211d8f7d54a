import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { languageName } from "./audioLanguage.ts";
import { shownLanguage, type TranscriptionState } from "./progress.ts";

/** "Language: Japanese (detected)" and the speech engine, in small print under the transcript. */
export function SpeechMeta({ state }: { state: TranscriptionState }) {
  const { t } = useTranslation();
  const lang = useLang();
  const shown = shownLanguage(state);
  if (!shown && !state.engine && !state.diarizationEngine) return null;
  return (
    <p className="tx-meta tx-speech-meta">
      {shown ? (
        <span data-testid="tx-result-language" data-value={shown.code}>
          {t(shown.detected ? "transcription.languageDetected" : "transcription.language", {
            language: languageName(shown.code, lang),
          })}
        </span>
      ) : null}
      {state.engine ? (
        <span data-testid="tx-engine" data-value={state.engine}>
          {t("transcription.engine", { engine: state.engine })}
        </span>
      ) : null}
      {state.diarizationEngine ? (
        <span data-testid="tx-diarization-engine" data-value={state.diarizationEngine}>
          {t("transcription.diarizationEngine", { engine: state.diarizationEngine })}
        </span>
      ) : null}
    </p>
  );
}
