import { useTranslation } from "react-i18next";

export type AudioSource = "upload" | "record";

/** "Upload a file | Record audio": which audio source the transcription form shows. */
export function SourceSwitch({
  value,
  onChange,
  disabled,
}: {
  value: AudioSource;
  onChange: (source: AudioSource) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const options: [AudioSource, string][] = [
    ["upload", t("transcription.recorder.sourceUpload")],
    ["record", t("transcription.recorder.sourceRecord")],
  ];
  return (
    <fieldset className="tx-source" data-testid="tx-source">
      <legend className="visually-hidden">{t("transcription.recorder.sourceLabel")}</legend>
      {options.map(([source, label]) => (
        <button
          key={source}
          type="button"
          aria-pressed={value === source}
          onClick={() => onChange(source)}
          disabled={disabled}
          data-testid={`tx-source-${source}`}
        >
          {label}
        </button>
      ))}
    </fieldset>
  );
}
