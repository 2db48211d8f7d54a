import { useTranslation } from "react-i18next";
import { isApiError } from "../api/errors.ts";

/** An error message in a role="alert" box, with the server's optional support link. */
export function ErrorAlert({ message, error, testId }: { message: string; error?: unknown; testId?: string }) {
  const { t } = useTranslation();
  const link = isApiError(error) ? error.link : undefined;
  return (
    <div className="alert alert-error" role="alert" data-testid={testId}>
      <span>{message}</span>
      {link ? (
        <>
          {" "}
          <a href={link} target="_blank" rel="noopener noreferrer">
            {t("messages.contactSupport")}
          </a>
        </>
      ) : null}
    </div>
  );
}
