import type { JobNotice } from "@kikitori/shared";
import { useTranslation } from "react-i18next";

/**
 * What the page should know about how the job was processed (e.g. the speakers were told apart by the
 * simpler engine because the neural one failed on this recording). Nothing when there is none.
 */
export function JobNotices({ notices }: { notices: readonly JobNotice[] }) {
  const { t } = useTranslation();
  if (notices.length === 0) return null;
  return (
    <div className="alert alert-info" role="status" data-testid="ws-notices">
      {notices.map((n) => (
        <p key={n} data-testid="ws-notice" data-code={n}>
          {t(`job.notices.${n}`)}
        </p>
      ))}
    </div>
  );
}
