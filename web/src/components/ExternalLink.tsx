import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** A link to an external page, opened in a new tab; plain text when the URL is not configured. */
export function ExternalLink({
  href,
  children,
  className,
}: {
  href: string;
  children?: ReactNode;
  className?: string;
}) {
  const { t } = useTranslation();
  if (!href) return <span className={className}>{children}</span>;
  return (
    <a className={className} href={href} target="_blank" rel="noopener noreferrer">
      {children}
      <span className="visually-hidden"> {t("nav.newTab")}</span>
    </a>
  );
}
