import {
  type AudioLanguage,
  FILE_TYPES,
  INTERVIEW_EXAMPLE_MAX,
  NAME_MAX,
  type SpeechStatus,
  TONES,
} from "@kikitori/shared";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { AudioLanguageSelect } from "./AudioLanguageSelect.tsx";
import { DEFAULT_FILE_TYPE } from "./form.ts";
import { DEFAULT_SPEAKER_COUNT, SpeakerCountSelect } from "./SpeakerCountSelect.tsx";

/** What the upload form asks besides the file and the audio language. */
export interface UploadFormValues {
  model: string;
  /** "auto" or "1"…"6". */
  speakers: string;
  interviewer: string;
  interviewee: string;
  tone: string;
  example: string;
  /** Names and terms for this recording, one per line ("": the account's glossary). */
  glossary: string;
}

export const INITIAL_UPLOAD_FORM: UploadFormValues = {
  model: DEFAULT_FILE_TYPE,
  speakers: DEFAULT_SPEAKER_COUNT,
  interviewer: "",
  interviewee: "",
  tone: "",
  example: "",
  glossary: "",
};

/** An example of the wanted style, with its length against the limit. */
function ExampleField({
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
      <div className="field-label-row">
        <label htmlFor="tx-example">{t("transcription.example")}</label>
        <span
          className={value.length >= INTERVIEW_EXAMPLE_MAX ? "tx-counter full" : "tx-counter"}
          data-testid="tx-example-count"
          aria-live="polite"
        >
          {t("transcription.exampleCount", { count: value.length, max: INTERVIEW_EXAMPLE_MAX })}
        </span>
      </div>
      <textarea
        id="tx-example"
        data-testid="tx-example"
        rows={4}
        maxLength={INTERVIEW_EXAMPLE_MAX}
        value={value}
        onChange={(e) => onChange(e.target.value.slice(0, INTERVIEW_EXAMPLE_MAX))}
        aria-describedby="tx-example-hint"
        disabled={disabled}
      />
      <p className="hint" id="tx-example-hint">
        {t("transcription.exampleHint")}
      </p>
    </div>
  );
}

/** Names and terms for this recording (collapsed; empty: the account's glossary). */
function GlossaryField({
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
    <details className="field tx-glossary" data-testid="tx-glossary">
      <summary>{t("transcription.glossary.title")}</summary>
      <label htmlFor="tx-glossary-terms">{t("transcription.glossary.label")}</label>
      <textarea
        id="tx-glossary-terms"
        data-testid="tx-glossary-terms"
        rows={4}
        value={value}
        placeholder={t("transcription.glossary.placeholder")}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby="tx-glossary-hint"
        spellCheck={false}
        disabled={disabled}
      />
      <p className="hint" id="tx-glossary-hint">
        {t("transcription.glossary.hint")}
      </p>
    </details>
  );
}

/**
 * The upload form's fields, disabled while a job runs: `children` (the drop zone) first, then the
 * audio language, the number of speakers, file type, tone, names and an example of the wanted style.
 */
export function UploadForm({
  values,
  onChange,
  audioLanguage,
  onAudioLanguageChange,
  speech,
  processing,
  children,
}: {
  values: UploadFormValues;
  onChange: <K extends keyof UploadFormValues>(key: K, value: UploadFormValues[K]) => void;
  audioLanguage: AudioLanguage;
  onAudioLanguageChange: (value: string) => void;
  speech: SpeechStatus;
  processing: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const { model, speakers, interviewer, interviewee, tone, example } = values;
  return (
    <fieldset className="tx-fieldset" disabled={processing}>
      <legend className="visually-hidden">{t("transcription.formLegend")}</legend>

      {children}

      <AudioLanguageSelect
        value={audioLanguage}
        onChange={onAudioLanguageChange}
        status={speech}
        disabled={processing}
      />

      <SpeakerCountSelect value={speakers} onChange={(v) => onChange("speakers", v)} disabled={processing} />

      <div className="tx-grid">
        <div className="field">
          <label htmlFor="tx-model">{t("fileTypes.label")}</label>
          <select
            id="tx-model"
            data-testid="tx-model"
            value={model}
            onChange={(e) => onChange("model", e.target.value)}
            disabled={processing}
          >
            <option value="">{t("transcription.fileTypePlaceholder")}</option>
            {FILE_TYPES.map((ft) => (
              <option key={ft} value={ft}>
                {t(`fileTypes.${ft}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="tx-tone">{t("tones.label")}</label>
          <select
            id="tx-tone"
            data-testid="tx-tone"
            value={tone}
            onChange={(e) => onChange("tone", e.target.value)}
            disabled={processing}
          >
            <option value="">{t("transcription.toneNone")}</option>
            {TONES.map((tn) => (
              <option key={tn} value={tn}>
                {t(`tones.${tn}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="tx-interviewer">{t("transcription.interviewer")}</label>
          <input
            id="tx-interviewer"
            data-testid="tx-interviewer"
            type="text"
            autoComplete="off"
            maxLength={NAME_MAX}
            value={interviewer}
            onChange={(e) => onChange("interviewer", e.target.value)}
            disabled={processing}
          />
        </div>
        <div className="field">
          <label htmlFor="tx-interviewee">{t("transcription.interviewee")}</label>
          <input
            id="tx-interviewee"
            data-testid="tx-interviewee"
            type="text"
            autoComplete="off"
            maxLength={NAME_MAX}
            value={interviewee}
            onChange={(e) => onChange("interviewee", e.target.value)}
            disabled={processing}
          />
        </div>
      </div>

      <ExampleField value={example} onChange={(v) => onChange("example", v)} disabled={processing} />

      <GlossaryField value={values.glossary} onChange={(v) => onChange("glossary", v)} disabled={processing} />
    </fieldset>
  );
}
