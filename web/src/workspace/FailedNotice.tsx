import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { formatDateTime } from "../job/format.ts";
import { useLang } from "../routing/useLang.ts";
import { retryJob } from "../transcription/api.ts";
import { jobErrorText } from "../transcription/errorMessage.ts";
import { RetryButton } from "../transcription/RetryButton.tsx";

/**
 * A failed job's notice with "Try again" (it runs again from where it stopped; the page then follows its
 * progress). When it was tried again from this page and failed once more, the notice says so and when.
 */
export function FailedNotice({
  snapshot,
  onRetried,
  retriedAt = null,
}: {
  snapshot: TranscriptionSnapshot;
  onRetried: () => void;
  retriedAt?: Date | null;
}) {
  const { t, i18n } = useTranslation();
  const lang = useLang();
  const [error, setError] = useState<string | null>(null);
  if (!snapshot.error) return null;
  return (
    <div className="alert alert-error" role="alert" data-testid="ws-failed" data-code={snapshot.error.code}>
      <p>{jobErrorText(t, i18n, { code: snapshot.error.code, message: snapshot.error.message })}</p>
      {retriedAt ? (
        <p data-testid="ws-failed-again">
          {t("job.failedAgain", { time: formatDateTime(retriedAt.toISOString(), lang) })}
        </p>
      ) : null}
      <RetryButton
        onRetry={async () => {
          try {
            await retryJob(snapshot.jobId);
            onRetried();
          } catch (e) {
            setError(errorText(t, e));
          }
        }}
      />
      {error ? <p className="field-error">{error}</p> : null}
    </div>
  );
}
