import { useTranslation } from "react-i18next";
import { isApiError } from "../api/errors.ts";

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

/** "Contact support here", opening the link the server sent with an error in a new tab. */
export function SupportLink({ href }: { href: string }) {
  const { t } = useTranslation();
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {t("messages.contactSupport")}
    </a>
  );
}
