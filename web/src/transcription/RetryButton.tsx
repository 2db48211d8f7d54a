import { useState } from "react";
import { useTranslation } from "react-i18next";

/** "Try again" on a failed job: it runs again from where it stopped, without a new upload. */
export function RetryButton({ onRetry }: { onRetry: () => Promise<void> }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  return (
    <p>
      <button
        type="button"
        className="btn btn-primary"
        data-testid="tx-retry"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void onRetry().finally(() => setBusy(false));
        }}
      >
        {t("transcription.retry")}
      </button>
    </p>
  );
}
