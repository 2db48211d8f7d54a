import type { TranscriptionSnapshot } from "@kikitori/shared";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText } from "../i18n/errorText.ts";
import { retryJob } from "../transcription/api.ts";
import { jobErrorText } from "../transcription/errorMessage.ts";
import { RetryButton } from "../transcription/RetryButton.tsx";

/** A failed job's notice with "Try again" (it runs again from where it stopped). */
export function FailedNotice({ snapshot, onRetried }: { snapshot: TranscriptionSnapshot; onRetried: () => void }) {
  const { t, i18n } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  if (!snapshot.error) return null;
  return (
    <div className="alert alert-error" role="alert" data-testid="ws-failed" data-code={snapshot.error.code}>
      <p>{jobErrorText(t, i18n, { code: snapshot.error.code, message: snapshot.error.message })}</p>
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
