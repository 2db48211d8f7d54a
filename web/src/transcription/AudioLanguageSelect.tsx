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
import {
  audioLanguageOptions,
  audioLanguageStore,
  defaultAudioLanguage,
  groupAudioLanguageOptions,
} from "./audioLanguage.ts";

function localStore(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The audio language of the next upload: the user's last pick (kept in localStorage for later uploads),
 * else the interface language, which it follows until the user picks one; never one the speech engine
 * in use cannot take ("Detect automatically" then).
 */
export function useAudioLanguageChoice(
  uiLang: string,
  status?: SpeechStatus,
): [AudioLanguage, (value: string) => void] {
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
  return [defaultAudioLanguage(uiLang, picked, status), choose];
}

/**
 * The audio language selector: "Detect automatically", then the Whisper languages the speech engine in
 * use can take, named and sorted in the interface language; the others come last, disabled, in a group
 * "More languages (not installed on this server)". When the chosen one cannot be taken, the field says
 * why (the upload is blocked with the same text).
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
  const { available, more } = useMemo(
    () => groupAudioLanguageOptions(audioLanguageOptions(lang, status)),
    [lang, status],
  );
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
        {available.map((o) => (
          <option key={o.code} value={o.code}>
            {o.label}
          </option>
        ))}
        {more.length ? (
          <optgroup label={t("transcription.audioLanguageMore")} data-testid="tx-language-more">
            {more.map((o) => (
              <option key={o.code} value={o.code} disabled>
                {o.label}
              </option>
            ))}
          </optgroup>
        ) : null}
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
