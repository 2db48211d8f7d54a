import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { formatDateTime } from "../job/format.ts";
import { formatAmount } from "../plan/format.ts";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";

/** "Recent transcriptions": the user's last jobs; clicking one loads it into the result area. */
export function RecentList({
  jobs,
  loading,
  activeJobId,
  loadingJobId,
  disabled,
  onOpen,
}: {
  jobs: TranscriptionSnapshot[] | undefined;
  loading: boolean;
  activeJobId: string | null;
  loadingJobId: string | null;
  disabled: boolean;
  onOpen: (jobId: string) => void;
}) {
  const { t } = useTranslation();
  const lang = useLang();
  return (
    <section className="card tx-recent" aria-labelledby="tx-recent-title" data-testid="tx-recent">
      <div className="tx-recent-head">
        <h2 id="tx-recent-title">{t("transcription.recentTitle")}</h2>
        <Link to={localePath(lang, ROUTES.library)} data-testid="tx-library-link">
          {t("library.openAll")}
        </Link>
      </div>
      {loading ? (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("transcription.recentLoading")}
        </p>
      ) : !jobs?.length ? (
        <p className="muted tx-recent-empty">{t("transcription.recentEmpty")}</p>
      ) : (
        <ul className="tx-recent-list">
          {jobs.map((job) => (
            <li key={job.jobId}>
              <button
                type="button"
                className={job.jobId === activeJobId ? "tx-recent-item active" : "tx-recent-item"}
                data-testid="tx-recent-item"
                data-job-id={job.jobId}
                aria-current={job.jobId === activeJobId ? "true" : undefined}
                aria-busy={job.jobId === loadingJobId}
                disabled={disabled}
                onClick={() => onOpen(job.jobId)}
              >
                <span className="tx-recent-name">{job.originalName || job.jobId}</span>
                <span className="tx-recent-meta">
                  <time dateTime={job.createdAt}>{formatDateTime(job.createdAt, lang)}</time>
                  {job.durationSeconds > 0 ? (
                    <span>
                      {t("transcription.durationMinutes", { value: formatAmount(job.durationSeconds / 60, lang) })}
                    </span>
                  ) : null}
                  <span className={`tx-status tx-status-${job.status}`}>{t(`transcription.status.${job.status}`)}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
