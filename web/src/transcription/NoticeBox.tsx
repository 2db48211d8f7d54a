import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ExternalLink } from "../components/ExternalLink.tsx";
import { localePath, ROUTES } from "../routing/paths.ts";
import { useLang } from "../routing/useLang.ts";
import { jobErrorText } from "./errorMessage.ts";
import type { JobError } from "./progress.ts";

/** A problem to show above the submit button: a translated validation text, or an upload/job error. */
export type Notice = { kind: "text"; key: string } | { kind: "error"; error: JobError; warning: boolean };

/** The problem box (data-testid tx-error): validation text, or an upload/job error with its links. */
export function NoticeBox({ notice, contactUrl }: { notice: Notice; contactUrl: string }) {
  const { t, i18n } = useTranslation();
  const lang = useLang();
  if (notice.kind === "text") {
    return (
      <div className="alert alert-error" role="alert" data-testid="tx-error">
        {t(notice.key)}
      </div>
    );
  }
  const { error } = notice;
  return (
    <div
      className={notice.warning ? "alert alert-warning" : "alert alert-error"}
      role="alert"
      data-testid="tx-error"
      data-code={error.code}
    >
      <span>{jobErrorText(t, i18n, error)}</span>
      {error.code === "QUOTA_EXCEEDED" ? (
        <>
          {" "}
          <Link to={localePath(lang, ROUTES.upgradePlan)} data-testid="tx-upgrade-link">
            {t("transcription.upgradeLink")}
          </Link>
        </>
      ) : null}
      {contactUrl ? (
        <>
          {" "}
          <ExternalLink href={contactUrl}>{t("messages.contactSupport")}</ExternalLink>
        </>
      ) : null}
    </div>
  );
}
