import { EXPORT_FORMATS, type ExportFormat, type ExportText } from "@kikitori/shared";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { saveBlob } from "../lib/download.ts";
import { fetchExport } from "../transcription/api.ts";

/** Subtitles are cut from the timed transcript, so they are offered for the transcript only. */
const TIMED: readonly ExportFormat[] = ["srt", "vtt"];

/**
 * "Download": the transcript (timed, with speakers) or the interview text as TXT, Markdown, Word,
 * SRT, WebVTT or JSON. The file is fetched with the session's token and saved under the job's name.
 */
export function ExportMenu({
  jobId,
  interviewReady,
  beforeExport,
}: {
  jobId: string;
  interviewReady: boolean;
  /** Runs first (the job page saves pending edits, so the file has them). */
  beforeExport?: () => Promise<void>;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState<ExportText>(interviewReady ? "interview" : "transcript");
  const [format, setFormat] = useState<ExportFormat>("docx");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const formats = EXPORT_FORMATS.filter((f) => text === "transcript" || !TIMED.includes(f));

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      await beforeExport?.();
      const { blob, fileName } = await fetchExport(jobId, formats.includes(format) ? format : "docx", text);
      saveBlob(blob, fileName);
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="tx-export" data-testid="tx-export">
      <h3>{t("transcription.exportTitle")}</h3>
      <div className="tx-export-row">
        <div className="field">
          <label htmlFor="tx-export-text">{t("transcription.exportText")}</label>
          <select
            id="tx-export-text"
            data-testid="tx-export-text"
            value={text}
            onChange={(e) => setText(e.target.value as ExportText)}
          >
            <option value="transcript">{t("transcription.exportTextTranscript")}</option>
            <option value="interview" disabled={!interviewReady}>
              {t("transcription.exportTextInterview")}
            </option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="tx-export-format">{t("transcription.exportFormat")}</label>
          <select
            id="tx-export-format"
            data-testid="tx-export-format"
            value={formats.includes(format) ? format : "docx"}
            onChange={(e) => setFormat(e.target.value as ExportFormat)}
          >
            {formats.map((f) => (
              <option key={f} value={f}>
                {t(`transcription.exportFormats.${f}`)}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="tx-export-download"
          disabled={busy}
          onClick={() => void download()}
        >
          {t("transcription.exportDownload")}
        </button>
      </div>
      {error ? (
        <p className="field-error" role="alert" data-testid="tx-export-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
