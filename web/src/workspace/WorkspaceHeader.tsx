import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { formatDateTime } from "../job/format.ts";
import { useSpeakerName } from "../job/useSpeakerNames.ts";
import { formatAmount } from "../plan/format.ts";
import { useLang } from "../routing/useLang.ts";
import { languageName } from "../transcription/audioLanguage.ts";
import { DeleteJob } from "./DeleteJob.tsx";
import { SaveStatus } from "./SaveStatus.tsx";
import type { JobEditor } from "./useJobEditor.ts";

/**
 * The top of the job page: the (hidden) page title, the renamable title with the save status and
 * the delete button, and a line of facts (date, length, language, file type, tone, speakers, file).
 */
export function WorkspaceHeader({
  snap,
  editor,
  language,
  onReload,
}: {
  snap: TranscriptionSnapshot;
  editor: JobEditor;
  /** The recording's language, when known. */
  language: string | null;
  onReload: () => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  const shownName = useSpeakerName();
  return (
    <>
      <h1 className="visually-hidden" data-testid="page-title" dir="auto">
        {snap.title}
      </h1>
      <div className="ws-head">
        <label className="visually-hidden" htmlFor="ws-title">
          {t("job.titleLabel")}
        </label>
        <input
          id="ws-title"
          className="ws-title"
          data-testid="ws-title"
          value={editor.values.title}
          maxLength={255}
          dir="auto"
          placeholder={snap.originalName}
          onChange={(e) => editor.setTitle(e.target.value)}
          onBlur={() => void editor.save()}
        />
        {/* A failed job cannot be edited: its failure is shown below, not "All changes saved". */}
        {snap.status === "failed" ? null : (
          <SaveStatus
            state={editor.state}
            error={editor.error}
            onReload={onReload}
            onRetry={() => void editor.save()}
          />
        )}
        <DeleteJob jobId={snap.jobId} />
      </div>
      <p className="ws-meta muted">
        <time dateTime={snap.createdAt}>{formatDateTime(snap.createdAt, lang)}</time>
        <span>{t("transcription.durationMinutes", { value: formatAmount(snap.durationSeconds / 60, lang) })}</span>
        {language ? <span>{t("transcription.language", { language: languageName(language, lang) })}</span> : null}
        <span data-testid="ws-file-type">
          {t("fileTypes.label")}: {t(`fileTypes.${snap.model}`)}
        </span>
        {snap.tone ? (
          <span>
            {t("tones.label")}: {t(`tones.${snap.tone}`)}
          </span>
        ) : null}
        {snap.speakers.length ? (
          <span data-testid="ws-speaker-names">{snap.speakers.map(shownName).join(", ")}</span>
        ) : null}
        {snap.originalName !== snap.title ? <span dir="auto">{snap.originalName}</span> : null}
      </p>
    </>
  );
}
