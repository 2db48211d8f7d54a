import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { isApiError } from "../api/errors.ts";
import { errorLinkKind } from "./errorLink.ts";

/** An error message in a role="alert" box, with the server's optional support link. */
export function ErrorAlert({ message, error, testId }: { message: string; error?: unknown; testId?: string }) {
  const link = isApiError(error) ? error.link : undefined;
  return (
    <div className="alert alert-error" role="alert" data-testid={testId}>
      <span>{message}</span>
      {link ? (
        <>
          {" "}
          <SupportLink href={link} />
        </>
      ) : null}
    </div>
  );
}

/**
 * The link the server sent with an error, named for where it goes: the plan page (a used-up quota)
 * opens in this tab as "Upgrade your plan"; anything else is "Contact support here" in a new tab.
 */
export function SupportLink({ href }: { href: string }) {
  const { t } = useTranslation();
  const { kind, sameOrigin } = errorLinkKind(href, window.location.origin);
  if (kind === "plan") {
    const url = new URL(href, window.location.origin);
    return sameOrigin ? (
      <Link to={url.pathname + url.search} data-testid="error-plan-link">
        {t("transcription.upgradeLink")}
      </Link>
    ) : (
      <a href={href} data-testid="error-plan-link">
        {t("transcription.upgradeLink")}
      </a>
    );
  }
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" data-testid="error-support-link">
      {t("messages.contactSupport")}
    </a>
  );
}
