import { MAX_SPEAKERS } from "@kikitori/shared";
import { useTranslation } from "react-i18next";

/** "Number of speakers" at upload: auto, 1–6 (the screen's default is 2, an interview). */
export const DEFAULT_SPEAKER_COUNT = "2";

export function SpeakerCountSelect({
  value,
  onChange,
  disabled,
}: {
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  return (
    <div className="field">
      <label htmlFor="tx-speakers">{t("transcription.speakerCount")}</label>
      <select
        id="tx-speakers"
        name="speakers"
        data-testid="tx-speakers"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
        aria-describedby="tx-speakers-hint"
      >
        <option value="auto">{t("transcription.speakerCountAuto")}</option>
        {Array.from({ length: MAX_SPEAKERS }, (_, i) => String(i + 1)).map((n) => (
          <option key={n} value={n}>
            {t("transcription.speakerCountN", { count: Number(n) })}
          </option>
        ))}
      </select>
      <p className="hint" id="tx-speakers-hint">
        {t("transcription.speakerCountHint")}
      </p>
    </div>
  );
}
