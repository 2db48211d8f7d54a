import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { usePageMeta } from "../components/usePageMeta.ts";
import { localePath, ROUTES } from "./paths.ts";
import { useLang } from "./useLang.ts";

export function NotFoundPage() {
  const { t } = useTranslation();
  const lang = useLang();
  usePageMeta("notFound");
  return (
    <section className="page page-center">
      <h1 data-testid="page-title">{t("notFound.title")}</h1>
      <p className="muted">{t("notFound.description")}</p>
      <Link to={localePath(lang, ROUTES.transcription)} className="btn btn-primary">
        {t("notFound.home")}
      </Link>
    </section>
  );
}
