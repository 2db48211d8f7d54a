import {
  AUTO_LANGUAGE,
  type AudioLanguage,
  parseAudioLanguage,
  type SpeechStatus,
  speechRefuses,
} from "@kikitori/shared";
import { useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLang } from "../routing/useLang.ts";
import { audioLanguageOptions, audioLanguageStore, defaultAudioLanguage } from "./audioLanguage.ts";

function localStore(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The audio language of the next upload: the user's last pick (kept in localStorage for later uploads),
 * else the interface language, which it follows until the user picks one.
 */
export function useAudioLanguageChoice(uiLang: string): [AudioLanguage, (value: string) => void] {
  const store = useMemo(() => audioLanguageStore(localStore()), []);
  const [picked, setPicked] = useState<AudioLanguage | null>(() => store.get());
  const choose = useCallback(
    (value: string) => {
      const language = parseAudioLanguage(value);
      if (!language) return;
      setPicked(language);
      store.set(language);
    },
    [store],
  );
  return [defaultAudioLanguage(uiLang, picked), choose];
}

/**
 * The audio language selector: "Detect automatically", then the Whisper languages named and sorted in
 * the interface language. Languages the speech engine in use cannot take are disabled; when the chosen
 * one is among them, the field says why (the upload is blocked with the same text).
 */
export function AudioLanguageSelect({
  value,
  onChange,
  status,
  disabled,
}: {
  value: AudioLanguage;
  onChange: (value: string) => void;
  status: SpeechStatus;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const options = useMemo(() => audioLanguageOptions(lang, status), [lang, status]);
  const refused = speechRefuses(status, value);
  return (
    <div className="field">
      <label htmlFor="tx-language">{t("transcription.audioLanguage")}</label>
      <select
        id="tx-language"
        name="language"
        data-testid="tx-language"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-describedby={refused ? "tx-language-hint tx-language-error" : "tx-language-hint"}
        aria-invalid={refused || undefined}
      >
        <option value={AUTO_LANGUAGE}>{t("transcription.audioLanguageAuto")}</option>
        {options.map((o) => (
          <option key={o.code} value={o.code} disabled={o.unavailable}>
            {o.unavailable ? t("transcription.audioLanguageUnavailable", { language: o.label }) : o.label}
          </option>
        ))}
      </select>
      <p className="hint" id="tx-language-hint">
        {t("transcription.audioLanguageHint")}
      </p>
      {refused ? (
        <p className="field-error" id="tx-language-error" data-testid="tx-language-error">
          {t("errors.TRANSCRIPTION_LANGUAGE_UNSUPPORTED")}
        </p>
      ) : null}
    </div>
  );
}
