import type { TranscriptionListItem } from "@kikitori/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { refetchAfterWrite } from "../api/refetch.ts";
import { errorText } from "../i18n/errorText.ts";
import { formatDateTime } from "../job/format.ts";
import { useSpeakerName } from "../job/useSpeakerNames.ts";
import { formatAmount } from "../plan/format.ts";
import { jobPath } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { retryJob } from "../transcription/api.ts";
import { languageName } from "../transcription/audioLanguage.ts";
import { deleteTranscription, patchTranscription } from "./api.ts";
import { marked } from "./Marked.tsx";

/** The job's title being renamed in place (Escape cancels). */
function RenameForm({
  jobId,
  title,
  onTitle,
  busy,
  onSave,
  onCancel,
}: {
  jobId: string;
  title: string;
  onTitle: (title: string) => void;
  busy: boolean;
  onSave: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  return (
    <form
      className="lib-rename"
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      <label className="visually-hidden" htmlFor={`lib-title-${jobId}`}>
        {t("job.titleLabel")}
      </label>
      <input
        id={`lib-title-${jobId}`}
        data-testid="lib-rename-input"
        value={title}
        maxLength={255}
        dir="auto"
        // biome-ignore lint/a11y/noAutofocus: the field the user just asked for
        autoFocus
        onChange={(e) => onTitle(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
        }}
      />
      <button type="submit" className="btn btn-primary btn-small" data-testid="lib-rename-save" disabled={busy}>
        {t("library.save")}
      </button>
      <button type="button" className="btn btn-secondary btn-small" onClick={onCancel}>
        {t("library.cancel")}
      </button>
    </form>
  );
}

/** The job's date, length, language, status and speakers. */
function LibraryItemMeta({ job }: { job: TranscriptionListItem }) {
  const { t } = useTranslation();
  const lang = useLang();
  const shownName = useSpeakerName();
  const language = job.detectedLanguage ?? (job.audioLanguage !== "auto" ? job.audioLanguage : null);
  return (
    <span className="lib-meta muted">
      <time dateTime={job.createdAt}>{formatDateTime(job.createdAt, lang)}</time>
      <span>{t("transcription.durationMinutes", { value: formatAmount(job.durationSeconds / 60, lang) })}</span>
      {language ? <span>{languageName(language, lang)}</span> : null}
      <span className={`tx-status tx-status-${job.status}`} data-testid="lib-status">
        {t(`transcription.status.${job.status}`)}
      </span>
      {job.speakers.length ? <span dir="auto">{job.speakers.map(shownName).join(", ")}</span> : null}
    </span>
  );
}

/** One job of the library with rename, delete (confirmed in place) and, when it failed, retry. */
export function LibraryItem({ job, uid, query }: { job: TranscriptionListItem; uid: string; query: string }) {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<"view" | "rename" | "confirmDelete">("view");
  const [title, setTitle] = useState(job.title);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => refetchAfterWrite(queryClient, ["library", uid]);

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      setMode("view");
      await refresh();
    } catch (e) {
      setError(errorText(t, e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className="lib-item" data-testid="lib-item" data-job-id={job.jobId} data-status={job.status}>
      {mode === "rename" ? (
        <RenameForm
          jobId={job.jobId}
          title={title}
          onTitle={setTitle}
          busy={busy}
          onSave={() =>
            void act(() => patchTranscription(job.jobId, { version: job.version, title: title.trim() || null }))
          }
          onCancel={() => setMode("view")}
        />
      ) : (
        <Link className="lib-title" data-testid="lib-open" to={jobPath(lang, job.jobId)} dir="auto">
          {job.title}
        </Link>
      )}
      <LibraryItemMeta job={job} />
      {job.snippet ? (
        <p className="lib-snippet" dir="auto" data-testid="lib-snippet">
          {marked(job.snippet, [query.trim(), ...query.trim().split(/\s+/)])}
        </p>
      ) : null}
      {mode === "confirmDelete" ? (
        <span className="lib-actions lib-confirm" role="alert">
          <span>{t("library.confirmDelete")}</span>
          <button
            type="button"
            className="btn btn-danger btn-small"
            data-testid="lib-delete-confirm"
            disabled={busy}
            onClick={() => void act(() => deleteTranscription(job.jobId))}
          >
            {t("library.delete")}
          </button>
          <button type="button" className="btn btn-secondary btn-small" onClick={() => setMode("view")}>
            {t("library.cancel")}
          </button>
        </span>
      ) : mode === "view" ? (
        <span className="lib-actions">
          {job.status === "failed" ? (
            <button
              type="button"
              className="btn btn-primary btn-small"
              data-testid="lib-retry"
              disabled={busy}
              onClick={() =>
                void act(async () => {
                  await retryJob(job.jobId);
                  navigate(jobPath(lang, job.jobId));
                })
              }
            >
              {t("transcription.retry")}
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-secondary btn-small"
            data-testid="lib-rename"
            aria-label={t("library.renameNamed", { title: job.title })}
            onClick={() => {
              setTitle(job.title);
              setMode("rename");
            }}
          >
            {t("library.rename")}
          </button>
          <button
            type="button"
            className="btn btn-secondary btn-small"
            data-testid="lib-delete"
            aria-label={t("library.deleteNamed", { title: job.title })}
            onClick={() => setMode("confirmDelete")}
          >
            {t("library.delete")}
          </button>
        </span>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}
