import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useRouteError } from "react-router";

/** The router's fallback screen, titled 'Unexpected Application Error!' (React Router's own wording). */
export function RouteErrorPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  useEffect(() => {
    console.error("Route error", error);
  }, [error]);
  return (
    <main className="error-screen" id="main">
      <section className="card page-center">
        <h1 data-testid="page-title">{t("routeError.title")}</h1>
        <p className="muted">{t("routeError.description")}</p>
        <div className="button-row">
          <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
            {t("routeError.reload")}
          </button>
          <a className="btn btn-secondary" href="/">
            {t("routeError.home")}
          </a>
        </div>
      </section>
    </main>
  );
}
